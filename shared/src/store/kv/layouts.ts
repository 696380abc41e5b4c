import type { ExecutionSnapshot } from "../../execution/snapshot";
import type {
  ApiKeyRecord,
  ApprovalRecord,
  ApprovalStatus,
  ArtifactRecord,
  AuditRecord,
  SecretRecord,
  WebhookRecord,
  WorkflowRecord,
} from "../records";
import { triggerFacts } from "../workflow-triggers";
import { keyToken as t, sortableNumber } from "./key-codec";

/*
 * Index key layouts of the KV adapter, one index bucket per record type. Every key ends in
 * <sort>.<id>, so each list query is a subject-filter scan of one key family, sorted on those
 * two tokens. <createdAt> is `sortableNumber`; every other part goes through `keyToken`.
 *
 *   executions  o.<owner>.<workflow>.<createdAt>.<id> = <status>   by owner [and workflow] [and status]
 *               t.<owner>.<workflow>.<createdAt>.<id> = <status>   the same, of step tests (triggerSource step_test)
 *   approvals   o.<owner>.<createdAt>.<id>
 *               s.<owner>.<status>.<createdAt>.<id>
 *               to.<owner>.<createdAt>.<id>, ts.<owner>.<status>.<createdAt>.<id>: the same, of step tests' approvals
 *               e.<execution>.<createdAt>.<id>
 *   artifacts   e.<execution>.<createdAt>.<id>
 *   webhooks    o.<owner>.<createdAt>.<id>
 *   workflows   v.<user>.<name>.<id>, one per user who sees it: the owner and each sharedWith user
 *               c.<after>.<createdAt>.<id>, one per workflow its DELAYED_COMPLETION triggers name
 *               s.<createdAt>.<id>, when it has a schedule trigger
 *               q.<owner> = {<workflow id>: <when>}: no list's key, the owner's creates under way (workflow-bound.ts)
 *   audit       t.<at>.<id>
 *   secrets     o.<owner>.<name>.<id>
 *   api keys    o.<owner>.<createdAt>.<id>
 *   users: none (read by id; a user's email maps to its id in a bucket of its own)
 *
 * The workflow id sits before the sort tokens, not in a family of its own, and an execution's
 * status is its key's value (filtered on while scanning), so a status change is one put of one
 * key whatever the filters. Buckets written before the value was carried hold `s.` keys that
 * nothing reads any more, and `o.` keys with an empty value, whose status lists read from the record.
 */

/** How a record type is listed: its index keys, and the one value all of them carry (if any). */
export interface IndexLayout<T> {
  keys(value: T): string[];
  /**
   * A field of the record that lists filter on (a status) carried as the keys' value instead of
   * as a key family of its own: a change of it is one put of the same keys, where a family of
   * its own costs a put of the new key and a purge of the old one. Keys written before a
   * collection carried values hold "" and are read as unknown.
   */
  value?(value: T): string;
}

/** Names past this many characters are left out of the key (they tie, and the id breaks the tie). */
const NAME_KEY_CHARS = 64;

export const executionLayout: IndexLayout<ExecutionSnapshot> = {
  keys: (e) => [
    `${e.triggerSource === "step_test" ? "t" : "o"}.${t(e.ownerId)}.${t(e.workflowId)}.${executionSortId(e)}`,
  ],
  value: (e) => e.status,
};

/**
 * The list an execution is in: its owner's token, or for a step test `~` and the token (a
 * character no token has), so that step tests make lists of their own, left out of the others.
 */
export const executionListOwner = (ownerToken: string, stepTests: boolean): string =>
  stepTests ? `~${ownerToken}` : ownerToken;

/** The parts of an execution's index key, as tokens; `sortId` is `<createdAt>.<id>`, its sort order. */
export interface ExecutionKey {
  /** The list it is in (`executionListOwner`). */
  owner: string;
  workflow: string;
  sortId: string;
  id: string;
}

export function parseExecutionKey(key: string): ExecutionKey | null {
  const tokens = key.split(".");
  if (tokens.length !== 5 || (tokens[0] !== "o" && tokens[0] !== "t")) return null;
  const [family, owner, workflow, createdAt, id] = tokens as [string, string, string, string, string];
  return { owner: executionListOwner(owner, family === "t"), workflow, sortId: `${createdAt}.${id}`, id };
}

/** The index key of an entry of list `owner` (`executionListOwner`). */
export function executionKeyOf(owner: string, workflow: string, sortId: string): string {
  return owner.startsWith("~") ? `t.${owner.slice(1)}.${workflow}.${sortId}` : `o.${owner}.${workflow}.${sortId}`;
}

/** The sort key of an execution in its lists (see `parseExecutionKey`). */
export const executionSortId = (e: { createdAt: number; id: string }): string =>
  `${sortableNumber(e.createdAt)}.${t(e.id)}`;

/** Record types read by id only. */
export const NO_INDEX: IndexLayout<unknown> = { keys: () => [] };

/** Step tests' approvals have owner lists of their own (`to.`, `ts.`): the others' pages and totals leave them out. */
export const approvalLayout: IndexLayout<ApprovalRecord> = {
  keys: (a) => {
    const tail = `${sortableNumber(a.createdAt)}.${t(a.id)}`;
    const family = a.stepTest ? "t" : "";
    return [
      `${family}o.${t(a.ownerId)}.${tail}`,
      `${family}s.${t(a.ownerId)}.${a.status}.${tail}`,
      `e.${t(a.executionId)}.${tail}`,
    ];
  },
};

/** The approval lists the in-memory view holds: by owner, and by owner and status, step tests apart. */
export const approvalListed = (key: string): boolean =>
  key.startsWith("o.") || key.startsWith("s.") || key.startsWith("to.") || key.startsWith("ts.");

/** The group of the keys of an owner's approvals, or of those in one status; of step tests' with `stepTests`. */
export const approvalGroup = (q: { ownerId: string; status?: ApprovalStatus; stepTests?: boolean }): string => {
  const family = q.stepTests === true ? "t" : "";
  return q.status === undefined ? `${family}o.${t(q.ownerId)}` : `${family}s.${t(q.ownerId)}.${q.status}`;
};

export const artifactKeys = (a: ArtifactRecord): string[] => [
  `e.${t(a.executionId)}.${sortableNumber(a.createdAt)}.${t(a.id)}`,
];

export const webhookKeys = (w: WebhookRecord): string[] => [
  `o.${t(w.ownerId)}.${sortableNumber(w.createdAt)}.${t(w.id)}`,
];

export const workflowKeys = (w: WorkflowRecord): string[] => {
  const tail = `${t(Array.from(w.name).slice(0, NAME_KEY_CHARS).join(""))}.${t(w.id)}`;
  const users = new Set([w.ownerId, ...Object.keys(w.sharedWith)]);
  const { scheduled, chainedAfter } = triggerFacts(w.definition);
  const since = `${sortableNumber(w.createdAt)}.${t(w.id)}`;
  return [
    ...[...users].map((user) => `v.${t(user)}.${tail}`),
    ...chainedAfter.map((after) => `c.${t(after)}.${since}`),
    ...(scheduled ? [`s.${since}`] : []),
  ];
};

export const byExecution = (executionId: string): string => `e.${t(executionId)}.>`;
export const byOwner = (ownerId: string): string => `o.${t(ownerId)}.>`;
export const ALL_OWNERS = "o.>";
export const visibleTo = (userId: string): string => `v.${t(userId)}.>`;
export const chainedAfter = (workflowId: string): string => `c.${t(workflowId)}.>`;
export const ALL_CHAINED = "c.>";
/** The key token of the workflow a chain key (`c.<after>.…`) follows. */
export const chainedAfterToken = (key: string): string => key.split(".")[1] ?? "";
export const ALL_SCHEDULED = "s.>";
/** The family of the workflows index's per-owner cells of creates under way, which no list's filter reaches. */
export const CREATES_UNDER_WAY = "q";

export const apiKeyKeys = (k: ApiKeyRecord): string[] => [
  `o.${t(k.ownerId)}.${sortableNumber(k.createdAt)}.${t(k.id)}`,
];

export const secretKeys = (s: SecretRecord): string[] => [`o.${t(s.ownerId)}.${t(s.name)}.${t(s.id)}`];

export const auditKeys = (a: AuditRecord): string[] => [`t.${sortableNumber(a.at)}.${t(a.id)}`];
export const ALL_AUDIT = "t.>";
