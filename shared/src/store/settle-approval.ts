import { CasConflictError } from "../errors/index";
import type { Store } from "./port";
import type { ApprovalRecord } from "./records";

export type ApprovalSettlement =
  /** This change moved the approval out of PENDING. */
  | { won: true; record: ApprovalRecord }
  /** Another decision came first (or the record is gone: null). */
  | { won: false; record: ApprovalRecord | null }
  /** `change` declined: the number it returned (e.g. milliseconds until due). */
  | { won: false; declined: number; record: ApprovalRecord };

/**
 * Moves a PENDING approval on by compare-and-set: the one place where approve, reject, timeout
 * and cancel race, so exactly one of them wins. `change` may decline by returning a number.
 */
export async function settleApproval(
  store: Store,
  id: string,
  change: (pending: ApprovalRecord) => ApprovalRecord | number,
): Promise<ApprovalSettlement> {
  for (;;) {
    const current = await store.approvals.get(id);
    if (!current || current.value.status !== "PENDING") return { won: false, record: current?.value ?? null };
    const next = change(current.value);
    if (typeof next === "number") return { won: false, declined: next, record: current.value };
    try {
      await store.approvals.update(next, current.version);
      return { won: true, record: next };
    } catch (err) {
      if (!(err instanceof CasConflictError)) throw err;
    }
  }
}
