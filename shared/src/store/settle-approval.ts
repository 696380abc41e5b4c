import { CasConflictError } from "../errors/index";
import type { Store, Versioned } from "./port";
import type { ApprovalRecord } from "./records";

export type ApprovalSettlement =
  /** This change moved the approval out of PENDING; `version` is the one it wrote. */
  | { won: true; record: ApprovalRecord; version: number }
  /** Another decision came first (or the record is gone: null). */
  | { won: false; record: ApprovalRecord | null }
  /** `change` declined: the number it returned (e.g. milliseconds until due). */
  | { won: false; declined: number; record: ApprovalRecord };

/**
 * Moves a PENDING approval on by compare-and-set: the one place where approve, reject, timeout
 * and cancel race, so exactly one of them wins. `change` may decline by returning a number, or
 * refuse by throwing. `known`: the record as the caller already read it, to start from.
 */
export async function settleApproval(
  store: Store,
  id: string,
  change: (pending: ApprovalRecord) => ApprovalRecord | number,
  known?: Versioned<ApprovalRecord>,
): Promise<ApprovalSettlement> {
  let current: Versioned<ApprovalRecord> | null = known ?? (await store.approvals.get(id));
  for (;;) {
    if (!current || current.value.status !== "PENDING") return { won: false, record: current?.value ?? null };
    const next = change(current.value);
    if (typeof next === "number") return { won: false, declined: next, record: current.value };
    try {
      return { won: true, record: next, version: await store.approvals.update(next, current.version) };
    } catch (err) {
      if (!(err instanceof CasConflictError)) throw err;
    }
    current = await store.approvals.get(id);
  }
}
