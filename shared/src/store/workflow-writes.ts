import { PLAN_WORKFLOWS, type Plan } from "../auth/plans";
import { RecordTooLargeError, WfError } from "../errors/index";
import type { Store } from "./port";
import type { WorkflowRecord } from "./records";
import { createWithinBound, type BoundedCreate } from "./workflow-bound";

/**
 * Stores a new workflow record for its owner, whose account is on `plan`: past the plan's workflows it is refused
 * (PLAN_LIMIT, 403), and one too large for the store as such (PAYLOAD_TOO_LARGE, 413).
 */
export async function storeNewWorkflow(store: Store, record: WorkflowRecord, plan: Plan): Promise<void> {
  const limit = PLAN_WORKFLOWS[plan];
  let stored: BoundedCreate;
  try {
    stored = await createWithinBound(store.workflows, record, limit);
  } catch (err) {
    throw err instanceof RecordTooLargeError ? workflowTooLarge(err) : err;
  }
  if (!stored.created) throw noRoom(plan, limit, stored);
}

/** The plan's bound reached, said with what to do about it. */
function noRoom(plan: Plan, limit: number, refused: Extract<BoundedCreate, { created: false }>): WfError {
  const underWay = refused.underWay > 0 ? ` (and ${refused.underWay} more being created)` : "";
  return new WfError(
    "PLAN_LIMIT",
    `the ${plan} plan allows ${limit} workflows per account, and this account owns ${refused.owned}${underWay}: ` +
      `delete workflows it no longer needs, or move it to a larger plan`,
  );
}

/**
 * Stores `next` over version `expectedVersion` of its record with as many of the earlier versions it keeps as the
 * store takes: the oldest go first. Returns the record stored. A record too large even without them is refused with
 * what `tooLarge` makes of it (PAYLOAD_TOO_LARGE, 413): by default, that the workflow is; a concurrent edit makes the
 * write lose (CasConflictError).
 */
export async function storeWorkflowUpdate(
  store: Store,
  next: WorkflowRecord,
  expectedVersion: number,
  tooLarge: (err: RecordTooLargeError) => WfError = workflowTooLarge,
): Promise<WorkflowRecord> {
  for (let record = next; ;) {
    try {
      await store.workflows.update(record, expectedVersion);
      return record;
    } catch (err) {
      if (!(err instanceof RecordTooLargeError)) throw err;
      const history = record.history ?? [];
      if (history.length === 0) throw tooLarge(err);
      record = { ...record, history: withoutOldest(history, err.bytes - err.limit) };
    }
  }
}

type History = NonNullable<WorkflowRecord["history"]>;

/** `history` less its oldest versions, enough of them to take at least `over` bytes off the record, one at least. */
function withoutOldest(history: History, over: number): History {
  let dropped = 0;
  let kept = 0;
  while (kept < history.length && (kept === 0 || dropped < over)) {
    dropped += Buffer.byteLength(JSON.stringify(history[kept])) + 1;
    kept += 1;
  }
  return history.slice(kept);
}

/** A workflow's record over the store's limit, said as what to fix. */
function workflowTooLarge(err: RecordTooLargeError): WfError {
  return new WfError(
    "PAYLOAD_TOO_LARGE",
    `the workflow is too large to store: its YAML and its parse (stored beside it, about as large) would take ` +
      `${err.bytes} bytes, over the ${err.limit} a stored workflow may take (the NATS server's max_payload); make ` +
      `its YAML smaller than about half of that`,
  );
}
