import { CasConflictError } from "../errors/index";
import type { WorkflowRepo } from "./port";
import type { CreatesUnderWay, WorkflowRecord } from "./records";

/**
 * How long a create counts as under way: one record write, which answers or fails within seconds. A claim whose
 * creator died before it withdrew the claim stops holding a place this long after it was made.
 */
export const CREATE_UNDER_WAY_MS = 60_000;

/** Rounds of compare-and-set before a claim gives up: each lost round is another create of the owner's that won. */
const MAX_ROUNDS = 50;

/** A new workflow stored, or why it was not: its owner owns `owned` already, `underWay` more being created. */
export type BoundedCreate = { created: true } | { created: false; owned: number; underWay: number };

/**
 * Creates `record` unless its owner owns `limit` workflows or more, counting the creates of theirs under way
 * (docs/api.md#workflows-in-the-console, Bound). The create first claims a place in the owner's cell of creates under
 * way, written by compare-and-set after counting: of two creates that read the cell at one version only one writes
 * it, and every create after that one reads its claim, or (once it is withdrawn, after the create returned) counts its
 * workflow. So however many run at once, no more pass than the bound leaves room for. A delete needs no cell: the
 * count is of the records. A failed create throws, its claim withdrawn.
 */
export async function createWithinBound(
  workflows: WorkflowRepo,
  record: WorkflowRecord,
  limit: number,
  now: () => number = Date.now,
): Promise<BoundedCreate> {
  const { ownerId, id } = record;
  const claim = await claimPlace(workflows, ownerId, id, limit, now);
  if (claim !== null) return { created: false, ...claim };
  try {
    await workflows.create(record);
    return { created: true };
  } finally {
    // Not withdrawn, the claim holds its place CREATE_UNDER_WAY_MS: no reason to fail a create that stored.
    await withdrawClaim(workflows, ownerId, id, now).catch(() => undefined);
  }
}

/** Null once the claim is written; else what leaves no room. */
async function claimPlace(
  workflows: WorkflowRepo,
  ownerId: string,
  workflowId: string,
  limit: number,
  now: () => number,
): Promise<{ owned: number; underWay: number } | null> {
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const cell = await workflows.createsUnderWay.read(ownerId, {});
    const underWay = current(cell.value, now(), workflowId);
    const others = Object.keys(underWay).length;
    const owned = await workflows.countOwned(ownerId, limit - others);
    if (owned !== null) return { owned, underWay: others };
    if (await workflows.createsUnderWay.write(ownerId, { ...underWay, [workflowId]: now() }, cell.version)) return null;
  }
  throw new CasConflictError(`the workflow creates of ${ownerId}`);
}

/** Withdraws the claim of `workflowId`, its create having returned (stored or not). */
async function withdrawClaim(
  workflows: WorkflowRepo,
  ownerId: string,
  workflowId: string,
  now: () => number,
): Promise<void> {
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const cell = await workflows.createsUnderWay.read(ownerId, {});
    if (!Object.hasOwn(cell.value, workflowId)) return;
    if (await workflows.createsUnderWay.write(ownerId, current(cell.value, now(), workflowId), cell.version)) return;
  }
}

/** The creates still under way at `now`, but `workflowId`'s (a claim of its own is made or withdrawn anew). */
function current(underWay: CreatesUnderWay, now: number, workflowId: string): CreatesUnderWay {
  return Object.fromEntries(
    Object.entries(underWay).filter(([id, at]) => id !== workflowId && now - at < CREATE_UNDER_WAY_MS),
  );
}
