import { describe, expect, it, onTestFinished } from "vitest";
import { AlreadyExistsError, CasConflictError, WfError } from "@wf/shared/errors";
import { ExecutionSnapshot, newId, type ExecutionStatus } from "@wf/shared/execution";
import { startExecution, type CommandPublisher } from "@wf/shared/client";
import type { ApprovalStatus, ExecutionRepo, Repo, Store } from "@wf/shared/store";
import { waitFor } from "./wait-for";
import {
  ApiKeyRecord,
  ApprovalRecord,
  ArtifactRecord,
  AuditRecord,
  ChainRunsRecord,
  CREATE_UNDER_WAY_MS,
  createWithinBound,
  ScheduleRecord,
  SecretRecord,
  secretId,
  UserRecord,
  WebhookRecord,
  WorkflowRecord,
} from "@wf/shared/store";

/**
 * Opens a fresh, empty store for one test; `cleanup` closes it and drops what it created.
 * `starts` publishes start commands where the store's namespace keeps them (the KV adapter reads
 * announced executions from there).
 */
export type OpenTestStore = () => Promise<{ store: Store; starts: TestStarts; cleanup(): Promise<void> }>;

export interface TestStarts {
  ns: string;
  publisher: CommandPublisher;
  /** Whether the start command of `executionId` is stored. */
  queued(executionId: string): Promise<boolean>;
}

const T0 = Date.UTC(2025, 0, 1);

/** `repo` with another `announce`; every other method runs on `repo` itself. */
function withAnnounce(repo: ExecutionRepo, announce: ExecutionRepo["announce"]): ExecutionRepo {
  return new Proxy(repo, {
    get(target, prop) {
      if (prop === "announce") return announce;
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** Owners are unique per test, and some carry characters that are not subject tokens. */
const owner = (): string => `user-${newId()}`;
const emailOwner = (): string => `${newId()}.ops@example.com`;

function executionOf(ownerId: string, over: Partial<ExecutionSnapshot> = {}): ExecutionSnapshot {
  return ExecutionSnapshot.parse({
    id: newId(),
    workflowId: "wf-a",
    workflowName: "demo",
    ownerId,
    triggerSource: "open_api",
    status: "PENDING",
    totalSteps: 2,
    createdAt: T0,
    vars: {},
    definition: { steps: [] },
    ...over,
  });
}

/** A pending approval of `ownerId`, with `over` on top: the contract's, and other store tests'. */
export function approvalOf(ownerId: string, over: Partial<ApprovalRecord> = {}): ApprovalRecord {
  return ApprovalRecord.parse({
    id: newId(),
    executionId: "exec-1",
    workflowId: "wf-a",
    ownerId,
    stepName: "review",
    status: "PENDING",
    approvalMessage: "please check",
    timeout: 3600,
    createdAt: T0,
    expiresAt: T0 + 3_600_000,
    reviewableGroups: [],
    ...over,
  });
}

function artifactOf(ownerId: string, over: Partial<ArtifactRecord> = {}): ArtifactRecord {
  return ArtifactRecord.parse({
    id: newId(),
    executionId: "exec-1",
    ownerId,
    stepName: "build",
    name: "report.csv",
    path: "out/report.csv",
    storageKey: `artifacts/${newId()}`,
    size: 42,
    contentType: "text/csv",
    previewable: true,
    createdAt: T0,
    ...over,
  });
}

function webhookOf(ownerId: string, over: Partial<WebhookRecord> = {}): WebhookRecord {
  return WebhookRecord.parse({
    id: newId(),
    ownerId,
    workflowId: "wf-a",
    name: "hook",
    mode: "open",
    apiKeyId: null,
    secretKey: null,
    variableMapping: null,
    allowedSourceIps: [],
    enabled: true,
    createdAt: T0,
    updatedAt: T0,
    ...over,
  });
}

function workflowOf(ownerId: string, over: Partial<WorkflowRecord> = {}): WorkflowRecord {
  return WorkflowRecord.parse({
    id: newId(),
    name: "demo",
    ownerId,
    yaml: "name: demo\nsteps: []\n",
    definition: { steps: [] },
    version: 1,
    createdAt: T0,
    updatedAt: T0,
    ...over,
  });
}

function userOf(over: Partial<UserRecord> = {}): UserRecord {
  return UserRecord.parse({
    id: newId(),
    email: `${newId()}@example.com`,
    passwordHash: "scrypt$1$1$1$00$00",
    plan: "free",
    status: "active",
    createdAt: T0,
    updatedAt: T0,
    ...over,
  });
}

function apiKeyOf(ownerId: string, over: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
  return ApiKeyRecord.parse({
    id: newId(),
    name: "ci",
    ownerId,
    scopes: ["WORKFLOW_READ"],
    secretHash: "0".repeat(64),
    createdAt: T0,
    expiresAt: null,
    revokedAt: null,
    lastUsedAt: null,
    ...over,
  });
}

function auditOf(over: Partial<AuditRecord> = {}): AuditRecord {
  return AuditRecord.parse({
    id: newId(),
    at: T0,
    reason: "bad_secret",
    keyId: null,
    ip: "127.0.0.1",
    method: "GET",
    path: "/api/v1/workflows",
    ...over,
  });
}

function secretOf(ownerId: string, name = `s_${newId().replace(/-/g, "_")}`): SecretRecord {
  return SecretRecord.parse({
    id: secretId(ownerId, name),
    ownerId,
    name,
    sealed: "v1.iv.tag.data",
    createdAt: T0,
    updatedAt: T0,
  });
}

const ids = (records: readonly { id: string }[]): string[] => records.map((r) => r.id);

interface CrudCase<T extends { id: string }> {
  repo(store: Store): Repo<T>;
  make(): T;
  change(value: T): T;
}

/**
 * The storage port's contract: what any adapter must do, observed only through the port. Each
 * test opens its own store and uses its own owners and ids, so tests may run in parallel.
 */
export function runStoreContract(label: string, open: OpenTestStore): void {
  const freshWithStarts = async (): Promise<{ store: Store; starts: TestStarts }> => {
    const { store, starts, cleanup } = await open();
    onTestFinished(cleanup);
    return { store, starts };
  };
  const fresh = async (): Promise<Store> => (await freshWithStarts()).store;

  function crudSuite<T extends { id: string }>(name: string, c: CrudCase<T>): void {
    describe(`${name}: create, get, update, delete`, () => {
      it("get returns what create stored, at the version create returned", async () => {
        const repo = c.repo(await fresh());
        const value = c.make();
        const version = await repo.create(value);
        expect(await repo.get(value.id)).toEqual({ value, version });
      });

      it("get of an unknown id is null", async () => {
        const repo = c.repo(await fresh());
        expect(await repo.get(newId())).toBeNull();
      });

      it("create of an existing id fails with AlreadyExistsError and keeps the first value", async () => {
        const repo = c.repo(await fresh());
        const value = c.make();
        const version = await repo.create(value);
        await expect(repo.create(c.change(value))).rejects.toBeInstanceOf(AlreadyExistsError);
        expect(await repo.get(value.id)).toEqual({ value, version });
      });

      it("update at the current version returns a new version that the next update can use", async () => {
        const repo = c.repo(await fresh());
        const first = c.make();
        const v1 = await repo.create(first);
        const second = c.change(first);
        const v2 = await repo.update(second, v1);
        expect(v2).not.toBe(v1);
        expect(await repo.get(first.id)).toEqual({ value: second, version: v2 });
        const third = c.change(second);
        const v3 = await repo.update(third, v2);
        expect(await repo.get(first.id)).toEqual({ value: third, version: v3 });
      });

      it("update at a stale version fails with CasConflictError and changes nothing", async () => {
        const repo = c.repo(await fresh());
        const first = c.make();
        const v1 = await repo.create(first);
        const second = c.change(first);
        const v2 = await repo.update(second, v1);
        await expect(repo.update(c.change(second), v1)).rejects.toBeInstanceOf(CasConflictError);
        expect(await repo.get(first.id)).toEqual({ value: second, version: v2 });
      });

      it("of two concurrent updates at the same version exactly one wins", async () => {
        const repo = c.repo(await fresh());
        const first = c.make();
        const v1 = await repo.create(first);
        const a = c.change(first);
        const b = c.change(a);
        const results = await Promise.allSettled([repo.update(a, v1), repo.update(b, v1)]);
        const won = results.flatMap((r, i) =>
          r.status === "fulfilled" ? [{ value: [a, b][i], version: r.value }] : [],
        );
        const lost = results.flatMap((r) => (r.status === "rejected" ? [r.reason] : []));
        expect(won).toHaveLength(1);
        expect(lost).toHaveLength(1);
        expect(lost[0]).toBeInstanceOf(CasConflictError);
        expect(await repo.get(first.id)).toEqual(won[0]);
      });

      it("update of a record that does not exist fails with NOT_FOUND", async () => {
        const repo = c.repo(await fresh());
        const value = c.make();
        const error = await repo.update(value, 1).catch((err: unknown) => err);
        expect(error).toBeInstanceOf(WfError);
        expect(error).not.toBeInstanceOf(CasConflictError);
        expect((error as WfError).code).toBe("NOT_FOUND");
      });

      it("getRecent sees this store's own creates, updates and deletes at once", async () => {
        const repo = c.repo(await fresh());
        const first = c.make();
        expect(await repo.getRecent(first.id)).toBeNull();
        const v1 = await repo.create(first);
        expect(await repo.getRecent(first.id)).toEqual({ value: first, version: v1 });
        const second = c.change(first);
        const v2 = await repo.update(second, v1);
        expect(await repo.getRecent(first.id)).toEqual({ value: second, version: v2 });
        expect(await repo.getRecent(first.id)).toEqual({ value: second, version: v2 });
        await repo.delete(first.id);
        expect(await repo.getRecent(first.id)).toBeNull();
      });

      it("delete removes the record, is idempotent, and frees the id", async () => {
        const repo = c.repo(await fresh());
        const value = c.make();
        const v1 = await repo.create(value);
        await repo.delete(value.id);
        expect(await repo.get(value.id)).toBeNull();
        await repo.delete(value.id);
        await expect(repo.update(c.change(value), v1)).rejects.toMatchObject({ code: "NOT_FOUND" });
        const again = c.change(value);
        const v2 = await repo.create(again);
        expect(await repo.get(value.id)).toEqual({ value: again, version: v2 });
      });
    });
  }

  describe(`store contract: ${label}`, () => {
    crudSuite("workflows", {
      repo: (s) => s.workflows,
      make: () => workflowOf(owner()),
      change: (w) => ({ ...w, name: `${w.name}+`, version: w.version + 1 }),
    });
    crudSuite("executions", {
      repo: (s) => s.executions,
      make: () => executionOf(owner()),
      change: (e) => ({ ...e, completedSteps: e.completedSteps + 1 }),
    });
    crudSuite("approvals", {
      repo: (s) => s.approvals,
      make: () => approvalOf(owner()),
      change: (a) => ({ ...a, approvalMessage: `${a.approvalMessage}+` }),
    });
    crudSuite("artifacts", {
      repo: (s) => s.artifacts,
      make: () => artifactOf(owner()),
      change: (a) => ({ ...a, size: a.size + 1 }),
    });
    crudSuite("webhooks", {
      repo: (s) => s.webhooks,
      make: () => webhookOf(owner()),
      change: (w) => ({ ...w, enabled: !w.enabled }),
    });

    crudSuite("users", {
      repo: (s) => s.users,
      make: () => userOf(),
      change: (u): UserRecord => ({ ...u, plan: u.plan === "free" ? "pro" : "free", updatedAt: u.updatedAt + 1 }),
    });
    crudSuite("api keys", {
      repo: (s) => s.apiKeys,
      make: () => apiKeyOf(owner()),
      change: (k) => ({ ...k, lastUsedAt: (k.lastUsedAt ?? T0) + 60_000 }),
    });
    crudSuite("audit", {
      repo: (s) => s.audit,
      make: () => auditOf(),
      change: (a) => ({ ...a, ip: `${a.ip}1` }),
    });

    crudSuite("chain runs", {
      repo: (s) => s.chainRuns,
      make: () =>
        ChainRunsRecord.parse({
          id: `${newId()}:${newId()}:0`,
          workflowId: newId(),
          runs: 1,
          recent: [newId()],
          updatedAt: T0,
        }),
      change: (c) => ({ ...c, runs: c.runs + 1, recent: [...c.recent, newId()], updatedAt: c.updatedAt + 1 }),
    });
    crudSuite("schedules", {
      repo: (s) => s.schedules,
      make: () =>
        ScheduleRecord.parse({ id: newId(), fingerprint: '[["* * * * *","UTC"]]', nextAt: T0 + 60_000, updatedAt: T0 }),
      change: (x) => ({ ...x, nextAt: x.nextAt + 60_000, updatedAt: x.updatedAt + 1 }),
    });

    crudSuite("secrets", {
      repo: (s) => s.secrets,
      make: () => secretOf(emailOwner()),
      change: (x) => ({ ...x, sealed: `${x.sealed}+`, updatedAt: x.updatedAt + 1 }),
    });

    describe("secrets.listByOwner", () => {
      it("lists one owner's secrets by name, and follows deletion", async () => {
        const store = await fresh();
        const me = emailOwner();
        const other = owner();
        const mine = ["zeta", "alpha", "mid_1"].map((name) => secretOf(me, name));
        for (const s of [...mine, secretOf(other, "alpha")]) await store.secrets.create(s);
        expect(await store.secrets.listByOwner(me)).toEqual([mine[1], mine[2], mine[0]]);
        await store.secrets.delete(mine[1]!.id);
        expect(ids(await store.secrets.listByOwner(me))).toEqual([mine[2]!.id, mine[0]!.id]);
        expect(await store.secrets.listByOwner(owner())).toEqual([]);
      });

      it("listAll lists every owner's secrets, and follows deletion", async () => {
        const store = await fresh();
        const all = [secretOf(emailOwner(), "a_1"), secretOf(emailOwner(), "a_1"), secretOf(owner(), "b_2")];
        for (const s of all) await store.secrets.create(s);
        expect(ids(await store.secrets.listAll()).sort()).toEqual(ids(all).sort());
        await store.secrets.delete(all[0]!.id);
        expect(ids(await store.secrets.listAll()).sort()).toEqual(ids(all.slice(1)).sort());
      });
    });

    describe("apiKeys.listByOwner", () => {
      it("lists one owner's keys newest first, follows a revocation and a deletion, and none of another owner's", async () => {
        const store = await fresh();
        const me = owner();
        const mine = [
          apiKeyOf(me, { createdAt: T0 + 1 }),
          apiKeyOf(me, { createdAt: T0 + 3 }),
          apiKeyOf(me, { createdAt: T0 + 2 }),
        ];
        for (const k of [...mine, apiKeyOf(owner(), { createdAt: T0 + 4 })]) await store.apiKeys.create(k);
        expect(ids(await store.apiKeys.listByOwner(me))).toEqual([mine[1]!.id, mine[2]!.id, mine[0]!.id]);
        const v = (await store.apiKeys.get(mine[2]!.id))!;
        await store.apiKeys.update({ ...v.value, revokedAt: T0 + 10 }, v.version);
        expect((await store.apiKeys.listByOwner(me)).find((k) => k.id === mine[2]!.id)?.revokedAt).toBe(T0 + 10);
        await store.apiKeys.delete(mine[1]!.id);
        expect(ids(await store.apiKeys.listByOwner(me))).toEqual([mine[2]!.id, mine[0]!.id]);
        expect(await store.apiKeys.listByOwner(owner())).toEqual([]);
      });
    });

    describe("users: one account per email", () => {
      it("getByEmail finds a user whatever the letter case, and misses unknown emails", async () => {
        const store = await fresh();
        const user = userOf({ email: `${newId()}.Ops@Example.com` });
        const version = await store.users.create(user);
        expect(await store.users.getByEmail(user.email.toUpperCase())).toEqual({ value: user, version });
        expect(await store.users.getByEmail(`nobody-${newId()}@example.com`)).toBeNull();
      });

      it("refuses a second user with the same email in another letter case, keeping the first", async () => {
        const store = await fresh();
        const first = userOf({ email: `${newId()}@example.com` });
        await store.users.create(first);
        const second = userOf({ email: first.email.toUpperCase() });
        await expect(store.users.create(second)).rejects.toBeInstanceOf(AlreadyExistsError);
        expect(await store.users.get(second.id)).toBeNull();
        expect((await store.users.getByEmail(first.email))?.value).toEqual(first);
      });

      it("of two concurrent creates with one email exactly one succeeds", async () => {
        const store = await fresh();
        const email = `${newId()}@example.com`;
        const results = await Promise.allSettled([
          store.users.create(userOf({ email })),
          store.users.create(userOf({ email })),
        ]);
        expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
      });

      it("frees the email when the user is deleted", async () => {
        const store = await fresh();
        const user = userOf();
        await store.users.create(user);
        await store.users.delete(user.id);
        expect(await store.users.getByEmail(user.email)).toBeNull();
        const again = userOf({ email: user.email });
        await store.users.create(again);
        expect((await store.users.getByEmail(user.email))?.value).toEqual(again);
      });
    });

    it("audit.listSince pages the records at or after a time, newest first", async () => {
      const store = await fresh();
      // Far in the future: no other test's records are as new.
      const base = Date.UTC(2090, 0, 1);
      const all = [0, 3, 1, 2].map((i) => auditOf({ at: base + i * 1000 }));
      for (const a of all) await store.audit.create(a);
      const [a0, a3, a1, a2] = all;
      expect(await store.audit.listSince(base + 1000, { page: 1, size: 10 })).toEqual({
        items: [a3, a2, a1],
        total: 3,
      });
      expect(await store.audit.listSince(base, { page: 2, size: 3 })).toEqual({ items: [a0], total: 4 });
      expect(await store.audit.listSince(base + 4000, { page: 1, size: 10 })).toEqual({ items: [], total: 0 });
    });

    it("records keep map keys with dots, '$' and '@', and values of every JSON type", async () => {
      const store = await fresh();
      const sharee = emailOwner();
      const execution = executionOf(emailOwner(), {
        vars: { "a.b": { $where: [1, "two", null, true, { "x.y": 1.5 }] }, "": "empty key" },
        steps: {
          "loop[2].name": {
            name: "loop[2].name",
            type: "code",
            status: "COMPLETED",
            output: { $set: "x" },
            error: null,
            attempts: 1,
            startedAt: T0,
            completedAt: T0 + 5,
            duration: 5,
            waitUntil: null,
            retryAt: null,
            deadline: null,
            childExecutionId: null,
            approvalId: null,
          },
        },
      });
      const workflow = workflowOf(emailOwner(), { sharedWith: { [sharee]: "editor" }, name: "Ünïcode name ✓" });
      const approval = approvalOf(owner(), { editedItems: { "group.one": [{ $col: 1, "a.b": "c" }] } });
      await store.executions.create(execution);
      await store.workflows.create(workflow);
      await store.approvals.create(approval);
      expect((await store.executions.get(execution.id))?.value).toEqual(execution);
      expect((await store.workflows.get(workflow.id))?.value).toEqual(workflow);
      expect((await store.approvals.get(approval.id))?.value).toEqual(approval);
    });

    it("rejects a page or a size below 1", async () => {
      const store = await fresh();
      await expect(store.executions.list({ ownerId: owner(), page: 0, size: 10 })).rejects.toMatchObject({
        code: "VALIDATION_FAILED",
      });
      await expect(store.approvals.list({ ownerId: owner(), page: 1, size: 0 })).rejects.toMatchObject({
        code: "VALIDATION_FAILED",
      });
    });

    describe("executions.list", () => {
      /** Five executions of one owner over two workflows, one a millisecond after the other. */
      async function seed(store: Store, ownerId: string): Promise<ExecutionSnapshot[]> {
        const plan: [string, ExecutionStatus][] = [
          ["wf-a", "COMPLETED"],
          ["wf-b", "RUNNING"],
          ["wf-a", "RUNNING"],
          ["wf-b", "FAILED"],
          ["wf-a", "RUNNING"],
        ];
        const all = plan.map(([workflowId, status], i) =>
          executionOf(ownerId, { workflowId, status, createdAt: T0 + i }),
        );
        await Promise.all(all.map((e) => store.executions.create(e)));
        // Someone else's executions, on the same workflow ids, never show up.
        await store.executions.create(executionOf(owner(), { workflowId: "wf-a", status: "RUNNING" }));
        return all;
      }

      it("pages an owner's executions newest first, each page with the total", async () => {
        const store = await fresh();
        const ownerId = owner();
        const [e0, e1, e2, e3, e4] = await seed(store, ownerId);
        const page = (n: number) => store.executions.list({ ownerId, page: n, size: 2 });
        expect(await page(1)).toEqual({ items: [e4, e3], total: 5 });
        expect(await page(2)).toEqual({ items: [e2, e1], total: 5 });
        expect(await page(3)).toEqual({ items: [e0], total: 5 });
        expect(await page(4)).toEqual({ items: [], total: 5 });
      });

      it("filters by workflowId, by status, and by both", async () => {
        const store = await fresh();
        const ownerId = owner();
        const [e0, e1, e2, e3, e4] = await seed(store, ownerId);
        const list = (q: { workflowId?: string; status?: ExecutionStatus }) =>
          store.executions.list({ ownerId, ...q, page: 1, size: 10 });
        expect(await list({ workflowId: "wf-a" })).toEqual({ items: [e4, e2, e0], total: 3 });
        expect(await list({ status: "RUNNING" })).toEqual({ items: [e4, e2, e1], total: 3 });
        expect(await list({ workflowId: "wf-b", status: "RUNNING" })).toEqual({ items: [e1], total: 1 });
        expect(await list({ workflowId: "wf-b", status: "FAILED" })).toEqual({ items: [e3], total: 1 });
        expect(await list({ status: "CANCELLED" })).toEqual({ items: [], total: 0 });
        expect(await list({ workflowId: "wf-none" })).toEqual({ items: [], total: 0 });
        const paged = await store.executions.list({ ownerId, workflowId: "wf-a", page: 2, size: 2 });
        expect(paged).toEqual({ items: [e0], total: 3 });
      });

      it("lists step tests apart: left out of every other list, alone with stepTests, status changes followed", async () => {
        const store = await fresh();
        const ownerId = owner();
        const run = executionOf(ownerId, { status: "COMPLETED", createdAt: T0 });
        let test = executionOf(ownerId, { triggerSource: "step_test", status: "RUNNING", createdAt: T0 + 1 });
        await store.executions.create(run);
        const version = await store.executions.create(test);
        const list = (q: { stepTests?: boolean; workflowId?: string; status?: ExecutionStatus }) =>
          store.executions.list({ ownerId, ...q, page: 1, size: 10 });
        expect(await list({})).toEqual({ items: [run], total: 1 });
        expect(await list({ workflowId: "wf-a" })).toEqual({ items: [run], total: 1 });
        expect(await list({ stepTests: true })).toEqual({ items: [test], total: 1 });
        test = { ...test, status: "COMPLETED" };
        await store.executions.update(test, version);
        expect(await list({ stepTests: true, workflowId: "wf-a", status: "COMPLETED" })).toEqual({
          items: [test],
          total: 1,
        });
        expect(await list({ status: "COMPLETED" })).toEqual({ items: [run], total: 1 });
        // Retention still finds them.
        expect(ids(await store.executions.listFinishedBefore(T0 + 2, 10))).toEqual(ids([run, test]));
      });

      it("listOpenBefore pages every owner's executions in a status created before a time, oldest first", async () => {
        const store = await fresh();
        const [a, b] = [owner(), owner()];
        const first = executionOf(a, { status: "RUNNING", createdAt: T0 });
        const second = executionOf(b, { status: "RUNNING", createdAt: T0 + 1 });
        const parked = executionOf(a, { status: "AWAITING_APPROVAL", createdAt: T0 + 2 });
        const ended = executionOf(b, { status: "COMPLETED", createdAt: T0 + 3 });
        const later = executionOf(a, { status: "RUNNING", createdAt: T0 + 10 });
        for (const e of [first, second, parked, ended, later]) await store.executions.create(e);

        const one = await store.executions.listOpenBefore("RUNNING", T0 + 10, 1);
        expect(one).toEqual({ items: [first], next: expect.any(String) });
        const two = await store.executions.listOpenBefore("RUNNING", T0 + 10, 1, one.next!);
        expect(two).toEqual({ items: [second], next: expect.any(String) });
        expect(await store.executions.listOpenBefore("RUNNING", T0 + 10, 1, two.next!)).toEqual({
          items: [],
          next: null,
        });
        expect(await store.executions.listOpenBefore("RUNNING", T0 + 11, 10)).toEqual({
          items: [first, second, later],
          next: null,
        });
        expect(await store.executions.listOpenBefore("AWAITING_APPROVAL", T0 + 11, 10)).toEqual({
          items: [parked],
          next: null,
        });
      });

      it("orders by createdAt before id, and by id (greatest first) when createdAt ties", async () => {
        const store = await fresh();
        const ownerId = owner();
        const older = executionOf(ownerId, { id: `z-${newId()}`, createdAt: T0 });
        const newer = executionOf(ownerId, { id: `a-${newId()}`, createdAt: T0 + 1 });
        const tieLow = executionOf(ownerId, { id: `m1-${newId()}`, createdAt: T0 + 2 });
        const tieHigh = executionOf(ownerId, { id: `m2-${newId()}`, createdAt: T0 + 2 });
        for (const e of [older, tieHigh, newer, tieLow]) await store.executions.create(e);
        const { items } = await store.executions.list({ ownerId, page: 1, size: 10 });
        expect(ids(items)).toEqual(ids([tieHigh, tieLow, newer, older]));
      });

      it("status filters follow status changes, totals included", async () => {
        const store = await fresh();
        const ownerId = owner();
        let e = executionOf(ownerId);
        let version = await store.executions.create(e);
        const count = async (status: ExecutionStatus) =>
          (await store.executions.list({ ownerId, status, page: 1, size: 10 })).total;
        const walk: ExecutionStatus[] = ["RUNNING", "AWAITING_APPROVAL", "RUNNING", "COMPLETED"];
        for (const status of walk) {
          e = { ...e, status, completedSteps: e.completedSteps + 1 };
          version = await store.executions.update(e, version);
          for (const other of ["PENDING", "RUNNING", "AWAITING_APPROVAL", "COMPLETED"] as const) {
            expect(await count(other), `${other} while ${status}`).toBe(other === status ? 1 : 0);
          }
          const listed = await store.executions.list({ ownerId, status, workflowId: e.workflowId, page: 1, size: 10 });
          expect(listed).toEqual({ items: [e], total: 1 });
        }
        expect(await store.executions.list({ ownerId, page: 1, size: 10 })).toEqual({ items: [e], total: 1 });
      });

      it("a status change that loses its race leaves no trace in the lists", async () => {
        const store = await fresh();
        const ownerId = owner();
        const e = executionOf(ownerId);
        const v1 = await store.executions.create(e);
        // Newer executions in both contested statuses fill page 1, so page 1's total has to be
        // right about entries it does not show.
        const newer = (["PENDING", "RUNNING", "CANCELLED"] as const).map((status) =>
          executionOf(ownerId, { status, createdAt: T0 + 1 }),
        );
        for (const n of newer) await store.executions.create(n);
        const results = await Promise.allSettled([
          store.executions.update({ ...e, status: "RUNNING" }, v1),
          store.executions.update({ ...e, status: "CANCELLED" }, v1),
        ]);
        expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
        const stored = (await store.executions.get(e.id))!.value.status;
        for (const [i, status] of (["PENDING", "RUNNING", "CANCELLED"] as const).entries()) {
          const { total, items } = await store.executions.list({ ownerId, status, page: 1, size: 1 });
          expect({ status, total, items }).toEqual({ status, total: status === stored ? 2 : 1, items: [newer[i]] });
        }
      });

      it("many concurrent status changes leave every list exact", async () => {
        const store = await fresh();
        const ownerId = owner();
        const all = Array.from({ length: 30 }, (_, i) => executionOf(ownerId, { createdAt: T0 + i }));
        const versions = await Promise.all(all.map((e) => store.executions.create(e)));
        const final = await Promise.all(
          all.map(async (e, i) => {
            let version = versions[i]!;
            let current = e;
            for (const status of ["RUNNING", "RUNNING", i % 2 ? "COMPLETED" : "FAILED"] as const) {
              current = { ...current, status, completedSteps: current.completedSteps + 1 };
              version = await store.executions.update(current, version);
            }
            return current;
          }),
        );
        const completed = await store.executions.list({ ownerId, status: "COMPLETED", page: 1, size: 100 });
        const failed = await store.executions.list({ ownerId, status: "FAILED", page: 1, size: 100 });
        const running = await store.executions.list({ ownerId, status: "RUNNING", page: 1, size: 100 });
        const newestFirst = (status: ExecutionStatus) => final.filter((e) => e.status === status).reverse();
        expect(completed).toEqual({ items: newestFirst("COMPLETED"), total: 15 });
        expect(failed).toEqual({ items: newestFirst("FAILED"), total: 15 });
        expect(running).toEqual({ items: [], total: 0 });
      });

      it("a deleted execution leaves every list and total", async () => {
        const store = await fresh();
        const ownerId = owner();
        const [e0, e1, e2, e3, e4] = await seed(store, ownerId);
        await store.executions.delete(e2!.id);
        expect(await store.executions.list({ ownerId, page: 1, size: 10 })).toEqual({
          items: [e4, e3, e1, e0],
          total: 4,
        });
        expect(await store.executions.list({ ownerId, status: "RUNNING", page: 1, size: 10 })).toEqual({
          items: [e4, e1],
          total: 2,
        });
      });

      it("pages anchored at page 1's first execution neither skip nor repeat while newer ones are written", async () => {
        const store = await fresh();
        const ownerId = owner();
        const seeded = Array.from({ length: 45 }, (_, i) =>
          executionOf(ownerId, { workflowId: i % 3 ? "wf-a" : "wf-b", createdAt: T0 + i }),
        );
        const versions = await Promise.all(seeded.map((e) => store.executions.create(e)));
        const first = await store.executions.list({ ownerId, page: 1, size: 10 });
        const anchor = first.items[0]!;
        const seen: string[] = ids(first.items);
        let written = 0;
        for (let page = 2; ; page++) {
          // Newer executions arrive between the pages, and some listed ones change status.
          await store.executions.create(executionOf(ownerId, { createdAt: T0 + 100 + written++ }));
          const changed = seeded[page * 4]!;
          await store.executions.update({ ...changed, status: "RUNNING" }, versions[page * 4]!);
          const { items, total } = await store.executions.list({ ownerId, from: anchor, page, size: 10 });
          expect(total).toBe(45);
          if (items.length === 0) break;
          seen.push(...ids(items));
        }
        expect(seen).toEqual(ids([...seeded].reverse()));
        const anchoredToWorkflow = await store.executions.list({
          ownerId,
          workflowId: "wf-b",
          from: seeded[30]!,
          page: 1,
          size: 3,
        });
        expect({ ids: ids(anchoredToWorkflow.items), total: anchoredToWorkflow.total }).toEqual({
          ids: ids([seeded[30]!, seeded[27]!, seeded[24]!]),
          total: 11,
        });
      });

      it("totals equal a full count of the pages after concurrent creates and status changes", async () => {
        const store = await fresh();
        const ownerId = owner();
        const statuses = ["COMPLETED", "FAILED", "RUNNING"] as const;
        const final = await Promise.all(
          Array.from({ length: 60 }, async (_, i) => {
            const e = executionOf(ownerId, { workflowId: `wf-${i % 2}`, createdAt: T0 + (i % 7) });
            const version = await store.executions.create(e);
            const done = { ...e, status: statuses[i % 3]!, completedSteps: 1 };
            await store.executions.update(done, version);
            return done;
          }),
        );
        for (const q of [
          {},
          { status: "COMPLETED" as const },
          { workflowId: "wf-1" },
          { workflowId: "wf-0", status: "RUNNING" as const },
        ]) {
          const listed: ExecutionSnapshot[] = [];
          let total = -1;
          for (let page = 1; ; page++) {
            const got = await store.executions.list({ ownerId, ...q, page, size: 7 });
            total = got.total;
            if (got.items.length === 0) break;
            listed.push(...got.items);
          }
          const expected = final.filter(
            (e) =>
              (q.status === undefined || e.status === q.status) &&
              (q.workflowId === undefined || e.workflowId === q.workflowId),
          );
          expect(total).toBe(expected.length);
          expect(new Set(ids(listed))).toEqual(new Set(ids(expected)));
          expect(listed).toHaveLength(expected.length);
        }
      });

      it("keeps owners and workflow ids apart whatever characters they hold", async () => {
        const store = await fresh();
        const base = newId();
        const owners = [`${base}`, `${base}.x`, `${base}@x`, `${base} x`, `${base}*`, `${base}>`, `${base}=2E`];
        const byOwner = new Map<string, ExecutionSnapshot>();
        for (const ownerId of owners) {
          const e = executionOf(ownerId, { workflowId: `${ownerId}/wf.1` });
          await store.executions.create(e);
          byOwner.set(ownerId, e);
        }
        for (const ownerId of owners) {
          const expected = { items: [byOwner.get(ownerId)], total: 1 };
          expect(await store.executions.list({ ownerId, page: 1, size: 10 })).toEqual(expected);
          const workflowId = `${ownerId}/wf.1`;
          expect(await store.executions.list({ ownerId, workflowId, status: "PENDING", page: 1, size: 10 })).toEqual(
            expected,
          );
        }
      });
    });

    describe("executions announced by a start", () => {
      const definition = {
        name: "announced",
        variables: { n: { type: "number", default: 1 } },
        steps: [{ name: "a", type: "transform", output: "{{ vars.n }}" }],
      };
      const requestOf = (ownerId: string, workflowId = "wf-a") => ({
        workflow: { id: workflowId, name: "announced", ownerId, version: 1, definition },
        inputs: { n: 2 },
        triggerSource: "webhook" as const,
      });
      const listed = (store: Store, ownerId: string, q: { workflowId?: string; status?: ExecutionStatus } = {}) =>
        store.executions.list({ ownerId, ...q, page: 1, size: 10 });
      /** A start announced on a fresh store, as read, and the RUNNING snapshot its executor would write. */
      const announcedThenRunning = async () => {
        const { store, starts } = await freshWithStarts();
        const ownerId = owner();
        const id = await startExecution(starts.publisher, starts.ns, requestOf(ownerId), { store });
        const read = (await store.executions.get(id))!;
        const running: ExecutionSnapshot = {
          ...read.value,
          status: "RUNNING",
          startedAt: Date.now(),
          holder: { actor: "a1", seq: 1, since: Date.now() },
        };
        return { store, starts, ownerId, id, read, running };
      };

      it("a new execution is read and listed PENDING before any executor writes it", async () => {
        const { store, starts } = await freshWithStarts();
        const ownerId = owner();
        const before = Date.now();
        const id = await startExecution(starts.publisher, starts.ns, requestOf(ownerId), { store });
        const read = await store.executions.get(id);
        expect(read?.value).toMatchObject({
          id,
          ownerId,
          workflowId: "wf-a",
          status: "PENDING",
          triggerSource: "webhook",
          vars: { n: 2 },
          holder: null,
          definition,
        });
        expect(read!.value.createdAt).toBeGreaterThanOrEqual(before);
        const page = { items: [read!.value], total: 1 };
        expect(await listed(store, ownerId)).toEqual(page);
        expect(await listed(store, ownerId, { status: "PENDING" })).toEqual(page);
        expect(await listed(store, ownerId, { workflowId: "wf-a", status: "PENDING" })).toEqual(page);
        expect(await listed(store, ownerId, { status: "RUNNING" })).toEqual({ items: [], total: 0 });
      });

      it("an update at the version read writes it: it moves to its new status in every list, once", async () => {
        const { store, ownerId, id, read, running } = await announcedThenRunning();
        const version = await store.executions.update(running, read.version);
        expect(await store.executions.get(id)).toEqual({ value: running, version });
        expect(await listed(store, ownerId)).toEqual({ items: [running], total: 1 });
        expect(await listed(store, ownerId, { status: "RUNNING" })).toEqual({ items: [running], total: 1 });
        expect(await listed(store, ownerId, { status: "PENDING" })).toEqual({ items: [], total: 0 });
        // The version it was read at is gone: a second writer from it loses.
        await expect(
          store.executions.update({ ...read.value, status: "CANCELLED" }, read.version),
        ).rejects.toBeInstanceOf(CasConflictError);
      });

      it("getForWrite answers what get answers on one server: the announced start, its first write, and nothing for an unknown id", async () => {
        const { store, id, read, running } = await announcedThenRunning();
        expect(await store.executions.getForWrite(id)).toEqual(read);
        const version = await store.executions.update(running, read.version);
        expect(await store.executions.getForWrite(id)).toEqual({ value: running, version });
        expect(await store.executions.getForWrite(newId())).toBeNull();
      });

      it("an executor holding the command creates the record where announce left it to the command, and finds it taken elsewhere", async () => {
        const { store, ownerId, id, running } = await announcedThenRunning();
        if (!store.executions.announcedInCommand) {
          await expect(store.executions.create(running)).rejects.toBeInstanceOf(AlreadyExistsError);
          return;
        }
        // Created as an unannounced start is, from the command alone: one entry in each list, with the new status.
        const version = await store.executions.create(running);
        expect(await store.executions.get(id)).toEqual({ value: running, version });
        expect(await listed(store, ownerId)).toEqual({ items: [running], total: 1 });
        expect(await listed(store, ownerId, { status: "RUNNING" })).toEqual({ items: [running], total: 1 });
        expect(await listed(store, ownerId, { status: "PENDING" })).toEqual({ items: [], total: 0 });
        // The same command taken again (a redelivery) finds the record.
        await expect(
          store.executions.create({ ...running, holder: { actor: "a2", seq: 2, since: Date.now() } }),
        ).rejects.toBeInstanceOf(AlreadyExistsError);
        expect(await listed(store, ownerId, { status: "RUNNING" })).toEqual({ items: [running], total: 1 });
      });

      it("a withdrawal of a start an executor has taken (its record written) leaves the record, its list entry and its command", async () => {
        const { store, starts, ownerId, id, read, running } = await announcedThenRunning();
        const version = store.executions.announcedInCommand
          ? await store.executions.create(running)
          : await store.executions.update(running, read.version);
        await store.executions.withdraw(read.value);
        expect(await store.executions.get(id)).toEqual({ value: running, version });
        expect(await listed(store, ownerId)).toEqual({ items: [running], total: 1 });
        expect(await starts.queued(id)).toBe(true);
      });

      it("a start whose command was stored but not acknowledged is withdrawn: nothing is read or listed", async () => {
        const { store, starts } = await freshWithStarts();
        const ownerId = owner();
        let published: string | undefined;
        const lostAck: CommandPublisher = {
          async publish(subject, data, opts) {
            await starts.publisher.publish(subject, data, opts);
            published = subject;
            throw new Error("no answer");
          },
        };
        await expect(startExecution(lostAck, starts.ns, requestOf(ownerId), { store })).rejects.toThrow("no answer");
        const id = published!.split(".").at(-1)!;
        // Withdrawn in the background: the caller is told at once.
        await waitFor(async () => (await store.executions.get(id)) === null, { what: "the start to be withdrawn" });
        expect(await listed(store, ownerId)).toEqual({ items: [], total: 0 });
        expect(await listed(store, ownerId, { status: "PENDING" })).toEqual({ items: [], total: 0 });
      });

      it("a start whose announce was stored but not acknowledged: withdrawn where the record is the announce, answered where it is the command", async () => {
        const { store, starts } = await freshWithStarts();
        const ownerId = owner();
        let published: string | undefined;
        const recording: CommandPublisher = {
          async publish(subject, data, opts) {
            const ack = await starts.publisher.publish(subject, data, opts);
            published = subject;
            return ack;
          },
        };
        const lostAnnounce = withAnnounce(store.executions, async (pending) => {
          await store.executions.announce(pending);
          throw new Error("no answer");
        });
        const starting = startExecution(recording, starts.ns, requestOf(ownerId), {
          store: { ...store, executions: lostAnnounce },
        });
        if (store.executions.announcedInCommand) {
          // The stored command is the record: an executor runs it whatever the caller is told.
          const id = await starting;
          expect(published!.split(".").at(-1)).toBe(id);
          expect((await store.executions.get(id))?.value.status).toBe("PENDING");
          expect((await listed(store, ownerId, { status: "PENDING" })).items.map((e) => e.id)).toEqual([id]);
          return;
        }
        await expect(starting).rejects.toThrow("no answer");
        const id = published!.split(".").at(-1)!;
        expect(await store.executions.get(id)).toBeNull();
        expect(await listed(store, ownerId)).toEqual({ items: [], total: 0 });
        expect(await listed(store, ownerId, { status: "PENDING" })).toEqual({ items: [], total: 0 });
      });

      it("a start with bad inputs stores and publishes nothing", async () => {
        const { store, starts } = await freshWithStarts();
        const ownerId = owner();
        let publishes = 0;
        const counting: CommandPublisher = {
          publish: (subject, data, opts) => {
            publishes++;
            return starts.publisher.publish(subject, data, opts);
          },
        };
        const bad = { ...requestOf(ownerId), inputs: { n: "not a number" } };
        await expect(startExecution(counting, starts.ns, bad, { store })).rejects.toMatchObject({
          code: "VALIDATION_FAILED",
        });
        expect(publishes).toBe(0);
        expect(await listed(store, ownerId)).toEqual({ items: [], total: 0 });
      });

      it("repairStale undoes, once stale, a failed start its withdrawal missed, and keeps a start still queued", async () => {
        const { store, starts } = await freshWithStarts();
        const ownerId = owner();
        // Announced, its command never stored: a start whose publish and withdrawal both failed.
        const abandoned = executionOf(ownerId, { createdAt: Date.now() - 10_000 });
        await store.executions.announce(abandoned);
        const queuedId = await startExecution(starts.publisher, starts.ns, requestOf(ownerId), { store });
        const isQueued = (id: string) => Promise.resolve(id === queuedId);
        expect(await store.executions.repairStale(abandoned.createdAt, 10, isQueued)).toEqual({
          repaired: 0,
          next: null,
        });
        // A page of one shows the newer, queued one: the abandoned one is counted in its total only.
        expect((await store.executions.list({ ownerId, page: 1, size: 1 })).total).toBe(2);

        // One per pass, each going on from where the last stopped: the abandoned one, the queued one, then none.
        const first = await store.executions.repairStale(Date.now() + 1, 1, isQueued);
        expect(first).toEqual({ repaired: 1, next: expect.any(String) });
        const second = await store.executions.repairStale(Date.now() + 1, 1, isQueued, first.next!);
        expect(second).toEqual({ repaired: 0, next: expect.any(String) });
        expect(await store.executions.repairStale(Date.now() + 1, 1, isQueued, second.next!)).toEqual({
          repaired: 0,
          next: null,
        });
        const queued = (await store.executions.get(queuedId))!.value;
        expect(await listed(store, ownerId)).toEqual({ items: [queued], total: 1 });
        expect(await listed(store, ownerId, { status: "PENDING" })).toEqual({ items: [queued], total: 1 });
        expect(await store.executions.get(abandoned.id)).toBeNull();
        expect(await store.executions.repairStale(Date.now() + 1, 10, isQueued)).toEqual({ repaired: 0, next: null });
      });
    });

    describe("approvals", () => {
      it("list pages an owner's approvals newest first and filters by status as it changes", async () => {
        const store = await fresh();
        const ownerId = owner();
        const all = Array.from({ length: 5 }, (_, i) => approvalOf(ownerId, { createdAt: T0 + i }));
        const versions = await Promise.all(all.map((a) => store.approvals.create(a)));
        await store.approvals.create(approvalOf(owner()));
        const [a0, a1, a2, a3, a4] = all;
        expect(await store.approvals.list({ ownerId, page: 1, size: 2 })).toEqual({ items: [a4, a3], total: 5 });
        expect(await store.approvals.list({ ownerId, page: 3, size: 2 })).toEqual({ items: [a0], total: 5 });

        const approved = { ...a3!, status: "APPROVED" as const, decidedAt: T0 + 10, decidedBy: "u1", comment: "ok" };
        await store.approvals.update(approved, versions[3]!);
        const pending = await store.approvals.list({ ownerId, status: "PENDING", page: 1, size: 10 });
        expect(pending).toEqual({ items: [a4, a2, a1, a0], total: 4 });
        const decided = await store.approvals.list({ ownerId, status: "APPROVED", page: 1, size: 10 });
        expect(decided).toEqual({ items: [approved], total: 1 });
        expect(await store.approvals.list({ ownerId, status: "PENDING", page: 2, size: 3 })).toEqual({
          items: [a0],
          total: 4,
        });
      });

      it("lists step tests' approvals apart: left out of every other list, alone with stepTests, status changes followed", async () => {
        const store = await fresh();
        const ownerId = owner();
        const executionId = newId();
        const run = approvalOf(ownerId, { createdAt: T0 });
        const test = approvalOf(ownerId, { executionId, stepTest: true, createdAt: T0 + 1 });
        const testVersion = await store.approvals.create(test);
        await store.approvals.create(run);
        const list = (q: { status?: ApprovalStatus; stepTests?: boolean }) =>
          store.approvals.list({ ownerId, page: 1, size: 10, ...q });
        expect(await list({})).toEqual({ items: [run], total: 1 });
        expect(await list({ status: "PENDING" })).toEqual({ items: [run], total: 1 });
        expect(await list({ stepTests: true })).toEqual({ items: [test], total: 1 });
        expect(await list({ stepTests: true, status: "PENDING" })).toEqual({ items: [test], total: 1 });

        const approved = { ...test, status: "APPROVED" as const, decidedAt: T0 + 10, decidedBy: "u1" };
        await store.approvals.update(approved, testVersion);
        expect(await list({ stepTests: true, status: "PENDING" })).toEqual({ items: [], total: 0 });
        expect(await list({ stepTests: true, status: "APPROVED" })).toEqual({ items: [approved], total: 1 });
        expect(await list({ status: "APPROVED" })).toEqual({ items: [], total: 0 });
        // The caller names the execution: its approvals are all there, a step test's as any other.
        expect(await store.approvals.listByExecution(executionId)).toEqual([approved]);
        expect((await store.approvals.get(test.id))?.value.stepTest).toBe(true);
        expect(run.stepTest).toBe(false);
      });

      it("listByExecution returns one execution's approvals oldest first", async () => {
        const store = await fresh();
        const ownerId = owner();
        const executionId = newId();
        const mine = [2, 0, 1].map((i) => approvalOf(ownerId, { executionId, createdAt: T0 + i }));
        for (const a of mine) await store.approvals.create(a);
        await store.approvals.create(approvalOf(ownerId, { executionId: newId() }));
        const listed = await store.approvals.listByExecution(executionId);
        expect(listed).toEqual([mine[1], mine[2], mine[0]]);
        expect(await store.approvals.listByExecution(newId())).toEqual([]);
      });
    });

    it("artifacts.listByExecution returns one execution's artifacts oldest first, without deleted ones", async () => {
      const store = await fresh();
      const ownerId = owner();
      const executionId = newId();
      const mine = [1, 0, 2].map((i) => artifactOf(ownerId, { executionId, createdAt: T0 + i }));
      for (const a of mine) await store.artifacts.create(a);
      await store.artifacts.create(artifactOf(ownerId, { executionId: newId() }));
      expect(await store.artifacts.listByExecution(executionId)).toEqual([mine[1], mine[0], mine[2]]);
      await store.artifacts.delete(mine[0]!.id);
      expect(await store.artifacts.listByExecution(executionId)).toEqual([mine[1], mine[2]]);
    });

    it("webhooks are listed newest first and counted per owner", async () => {
      const store = await fresh();
      const ownerId = emailOwner();
      const mine = [0, 2, 1].map((i) => webhookOf(ownerId, { createdAt: T0 + i }));
      for (const w of mine) await store.webhooks.create(w);
      await store.webhooks.create(webhookOf(emailOwner()));
      expect(await store.webhooks.listByOwner(ownerId)).toEqual([mine[1], mine[2], mine[0]]);
      expect(await store.webhooks.countByOwner(ownerId)).toBe(3);
      await store.webhooks.delete(mine[2]!.id);
      expect(await store.webhooks.listByOwner(ownerId)).toEqual([mine[1], mine[0]]);
      expect(await store.webhooks.countByOwner(ownerId)).toBe(2);
      expect(await store.webhooks.countByOwner(owner())).toBe(0);
    });

    it("webhooks.listAll lists every owner's webhooks, and follows deletion", async () => {
      const store = await fresh();
      const all = [webhookOf(emailOwner()), webhookOf(emailOwner()), webhookOf(owner())];
      for (const w of all) await store.webhooks.create(w);
      expect(ids(await store.webhooks.listAll()).sort()).toEqual(ids(all).sort());
      await store.webhooks.delete(all[1]!.id);
      expect(ids(await store.webhooks.listAll()).sort()).toEqual([all[0]!.id, all[2]!.id].sort());
    });

    describe("workflows.listVisible", () => {
      it("lists owned and shared workflows by name then id, paged, with the total", async () => {
        const store = await fresh();
        const me = emailOwner();
        const other = owner();
        const owned = [
          workflowOf(me, { name: "beta" }),
          workflowOf(me, { name: "delta", sharedWith: { [me]: "editor" } }),
        ];
        const shared = [
          workflowOf(other, { name: "alpha", sharedWith: { [me]: "viewer" } }),
          workflowOf(other, { name: "gamma", sharedWith: { [me]: "editor", [owner()]: "viewer" } }),
        ];
        const twin = workflowOf(other, { id: `${owned[0]!.id}-b`, name: "beta", sharedWith: { [me]: "viewer" } });
        const hidden = workflowOf(other, { name: "aaa" });
        for (const w of [...owned, ...shared, twin, hidden]) await store.workflows.create(w);

        const all = [shared[0], owned[0], twin, owned[1], shared[1]];
        expect(await store.workflows.listVisible(me, { page: 1, size: 10 })).toEqual({ items: all, total: 5 });
        expect(await store.workflows.listVisible(me, { page: 2, size: 2 })).toEqual({
          items: all.slice(2, 4),
          total: 5,
        });
        expect(await store.workflows.listVisible(me, { page: 3, size: 2 })).toEqual({ items: all.slice(4), total: 5 });
        expect(await store.workflows.listVisible(other, { page: 1, size: 10 })).toEqual({
          items: [hidden, shared[0], twin, shared[1]],
          total: 4,
        });
        expect(await store.workflows.listVisible(owner(), { page: 1, size: 10 })).toEqual({ items: [], total: 0 });
      });

      it("follows renames, unsharing and deletion", async () => {
        const store = await fresh();
        const me = owner();
        const other = owner();
        const a = workflowOf(other, { name: "a", sharedWith: { [me]: "viewer" } });
        const b = workflowOf(me, { name: "b" });
        const versionA = await store.workflows.create(a);
        const versionB = await store.workflows.create(b);
        const renamed = { ...b, name: "0-first" };
        await store.workflows.update(renamed, versionB);
        expect(await store.workflows.listVisible(me, { page: 1, size: 10 })).toEqual({ items: [renamed, a], total: 2 });
        const unshared = { ...a, sharedWith: {} };
        await store.workflows.update(unshared, versionA);
        expect(await store.workflows.listVisible(me, { page: 1, size: 10 })).toEqual({ items: [renamed], total: 1 });
        expect(await store.workflows.listVisible(other, { page: 1, size: 10 })).toEqual({
          items: [unshared],
          total: 1,
        });
        await store.workflows.delete(renamed.id);
        expect(await store.workflows.listVisible(me, { page: 1, size: 10 })).toEqual({ items: [], total: 0 });
      });
    });

    describe("workflows: an owner's bound", () => {
      it("countOwned counts the workflows an owner owns, not those shared with them, from atLeast on", async () => {
        const store = await fresh();
        const me = emailOwner();
        const other = owner();
        const mine = [workflowOf(me), workflowOf(me), workflowOf(me, { sharedWith: { [other]: "editor" } })];
        for (const w of [...mine, workflowOf(other, { sharedWith: { [me]: "editor" } })])
          await store.workflows.create(w);
        expect(await store.workflows.countOwned(me, 0)).toBe(3);
        expect(await store.workflows.countOwned(me, 3)).toBe(3);
        expect(await store.workflows.countOwned(me, 4)).toBeNull();
        expect(await store.workflows.countOwned(other, 1)).toBe(1);
        expect(await store.workflows.countOwned(owner(), 0)).toBe(0);
        await store.workflows.delete(mine[0]!.id);
        expect(await store.workflows.countOwned(me, 3)).toBeNull();
        expect(await store.workflows.countOwned(me, 2)).toBe(2);
      });

      it("createsUnderWay keeps one value per owner by compare-and-set", async () => {
        const cells = (await fresh()).workflows.createsUnderWay;
        const me = emailOwner();
        expect(await cells.read(me, {})).toEqual({ value: {}, version: 0 });
        expect(await cells.write(me, { a: 1 }, 0)).toBe(true);
        expect(await cells.write(me, { b: 1 }, 0)).toBe(false);
        const first = await cells.read(me, {});
        expect(first.value).toEqual({ a: 1 });
        expect(await cells.write(me, {}, first.version)).toBe(true);
        expect(await cells.write(me, { c: 1 }, first.version)).toBe(false);
        expect((await cells.read(me, {})).value).toEqual({});
        expect(await cells.read(owner(), { d: 2 })).toEqual({ value: { d: 2 }, version: 0 });
      });

      it("createWithinBound refuses at the bound, a delete frees a place, and of concurrent creates one short of it one passes", async () => {
        const store = await fresh();
        const me = emailOwner();
        await store.workflows.create(workflowOf(owner(), { sharedWith: { [me]: "editor" } }));
        for (let i = 0; i < 2; i++)
          expect(await createWithinBound(store.workflows, workflowOf(me), 4)).toEqual({ created: true });

        const racers = Array.from({ length: 4 }, () => workflowOf(me));
        const raced = await Promise.all(racers.map((w) => createWithinBound(store.workflows, w, 3)));
        expect(raced.filter((r) => r.created)).toHaveLength(1);
        for (const r of raced) if (!r.created) expect(r.owned + r.underWay).toBeGreaterThanOrEqual(3);
        expect(await store.workflows.countOwned(me, 0)).toBe(3);
        expect(await createWithinBound(store.workflows, workflowOf(me), 3)).toEqual({
          created: false,
          owned: 3,
          underWay: 0,
        });

        const kept = racers[raced.findIndex((r) => r.created)]!;
        await store.workflows.delete(kept.id);
        expect(await createWithinBound(store.workflows, workflowOf(me), 3)).toEqual({ created: true });
        expect(await store.workflows.countOwned(me, 0)).toBe(3);
        expect((await store.workflows.createsUnderWay.read(me, {})).value).toEqual({});
      });

      it("a failed create leaves no claim; one its creator left holds a place until it is old", async () => {
        const store = await fresh();
        const me = emailOwner();
        const taken = workflowOf(me);
        await store.workflows.create(taken);
        await expect(createWithinBound(store.workflows, { ...taken, name: "again" }, 5)).rejects.toThrow(
          AlreadyExistsError,
        );
        expect((await store.workflows.createsUnderWay.read(me, {})).value).toEqual({});

        const cell = await store.workflows.createsUnderWay.read(me, {});
        expect(await store.workflows.createsUnderWay.write(me, { [newId()]: T0 }, cell.version)).toBe(true);
        const at = (ms: number) => () => T0 + ms;
        expect(await createWithinBound(store.workflows, workflowOf(me), 2, at(1_000))).toEqual({
          created: false,
          owned: 1,
          underWay: 1,
        });
        expect(await createWithinBound(store.workflows, workflowOf(me), 2, at(CREATE_UNDER_WAY_MS))).toEqual({
          created: true,
        });
      });
    });

    describe("workflows by trigger", () => {
      const schedule = { type: "schedule", cron: "*/5 * * * *", timezone: "UTC" };
      const after = (id: string) => ({ type: "DELAYED_COMPLETION", after: id, on: ["COMPLETED"], delay: 5 });
      const withTriggers = (triggers: unknown[], createdAt: number) =>
        workflowOf(owner(), { createdAt, definition: { name: "demo", triggers, steps: [] } });

      it("listChainedAfter finds the workflows whose chained triggers name a workflow, oldest first, each once", async () => {
        const store = await fresh();
        const source = newId();
        const late = withTriggers([after(source)], T0 + 2);
        const twice = withTriggers([after(source), { ...after(source), on: ["FAILED"] }], T0 + 1);
        const elsewhere = withTriggers([after(newId()), schedule], T0);
        for (const w of [late, twice, elsewhere, workflowOf(owner())]) await store.workflows.create(w);
        expect(ids(await store.workflows.listChainedAfter(source))).toEqual([twice.id, late.id]);
        expect(await store.workflows.listChainedAfter(newId())).toEqual([]);
        expect(await store.workflows.hasChainedAfter(source)).toBe(true);
        expect(await store.workflows.hasChainedAfter(newId())).toBe(false);
      });

      it("chainedSince is null while no workflow has a chained trigger, then when the oldest one stored was stored", async () => {
        const store = await fresh();
        const plain = withTriggers([schedule], T0);
        await store.workflows.create(plain);
        expect(await store.workflows.chainedSince()).toBeNull();
        const before = Date.now();
        const first = { ...withTriggers([after(newId())], T0), updatedAt: before };
        await store.workflows.create(first);
        const after1 = Date.now();
        const since = await store.workflows.chainedSince();
        expect(since).not.toBeNull();
        // The server's clock and this process's may differ by a little on one machine.
        expect(since!).toBeGreaterThanOrEqual(before - 1_000);
        expect(since!).toBeLessThanOrEqual(after1 + 1_000);
        const second = { ...withTriggers([after(newId())], T0 + 1), updatedAt: after1 + 60_000 };
        await store.workflows.create(second);
        expect(await store.workflows.chainedSince()).toBe(since);
        // Created before both, chained after them: the oldest chained trigger is still `first`'s.
        const earlier = { ...withTriggers([schedule], T0 - 1), updatedAt: after1 + 60_000 };
        const v1 = await store.workflows.create(earlier);
        await store.workflows.update(
          { ...earlier, version: 2, definition: { name: "demo", triggers: [after(newId())], steps: [] } },
          v1,
        );
        expect(await store.workflows.chainedSince()).toBe(since);
        await store.workflows.delete(first.id);
        expect(await store.workflows.chainedSince()).toBeGreaterThanOrEqual(since!);
        await store.workflows.delete(second.id);
        await store.workflows.delete(earlier.id);
        expect(await store.workflows.chainedSince()).toBeNull();
      });

      it("listScheduled finds the workflows with a schedule trigger, oldest first", async () => {
        const store = await fresh();
        const b = withTriggers([after(newId()), schedule], T0 + 1);
        const a = withTriggers([schedule, { ...schedule, cron: "0 * * * * *" }], T0);
        for (const w of [b, a, withTriggers([after(newId())], T0), workflowOf(owner())])
          await store.workflows.create(w);
        expect(ids(await store.workflows.listScheduled())).toEqual([a.id, b.id]);
      });

      it("follows edits of the triggers, and deletion", async () => {
        const store = await fresh();
        const source = newId();
        const w = withTriggers([schedule], T0);
        const v1 = await store.workflows.create(w);
        const chained = { ...w, version: 2, definition: { name: "demo", triggers: [after(source)], steps: [] } };
        const v2 = await store.workflows.update(chained, v1);
        expect(await store.workflows.listScheduled()).toEqual([]);
        expect(await store.workflows.listChainedAfter(source)).toEqual([chained]);
        expect(await store.workflows.hasChainedAfter(source)).toBe(true);
        const plain = { ...chained, version: 3, definition: { name: "demo", steps: [] } };
        const v3 = await store.workflows.update(plain, v2);
        expect(await store.workflows.listChainedAfter(source)).toEqual([]);
        expect(await store.workflows.hasChainedAfter(source)).toBe(false);
        const scheduled = { ...plain, version: 4, definition: { name: "demo", triggers: [schedule], steps: [] } };
        await store.workflows.update(scheduled, v3);
        expect(await store.workflows.listScheduled()).toEqual([scheduled]);
        await store.workflows.delete(w.id);
        expect(await store.workflows.listScheduled()).toEqual([]);
      });
    });
  });
}
