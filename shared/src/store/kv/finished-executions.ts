import { TERMINAL_STATUSES, type ExecutionSnapshot, type ExecutionStatus } from "../../execution/snapshot";
import { deepFreeze } from "../../deep-freeze";

/** Past this age a held record is read again, should anything ever change a finished execution. */
export const FINISHED_MAX_AGE_MS = 30_000;
/** Bounds, in records and in stored bytes: a hundred pages of 20, whatever their records' size. */
export const FINISHED_CAPACITY = 2_000;
export const FINISHED_BUDGET_BYTES = 16 * 1024 * 1024;

/**
 * Finished executions as lists last read them, by record token: a finished execution does not
 * change, so a list may answer one from here instead of reading and parsing it again. One is served
 * only while the index, caught up at the list's start, still lists it with the same terminal status,
 * and for FINISHED_MAX_AGE_MS; the oldest goes first past either bound. Values are frozen: every
 * caller shares them (docs/architecture.md#execution-lists).
 */
export class FinishedExecutions {
  readonly #entries = new Map<string, { value: ExecutionSnapshot; bytes: number; at: number }>();
  #bytes = 0;

  /** The record held for `token`, if it is fresh and finished with the status the index gives it. */
  get(token: string, indexStatus: string): ExecutionSnapshot | undefined {
    const hit = this.#entries.get(token);
    if (hit === undefined) return undefined;
    if (hit.value.status !== indexStatus || Date.now() - hit.at > FINISHED_MAX_AGE_MS) {
      this.forget(token);
      return undefined;
    }
    return hit.value;
  }

  /** Holds `value` if it is finished; a record bigger than a tenth of the budget is not held. */
  keep(token: string, value: ExecutionSnapshot, bytes: number): void {
    if (!TERMINAL_STATUSES.has(value.status as ExecutionStatus) || bytes > FINISHED_BUDGET_BYTES / 10) return;
    this.forget(token);
    this.#entries.set(token, { value: deepFreeze(value), bytes, at: Date.now() });
    this.#bytes += bytes;
    while (this.#entries.size > FINISHED_CAPACITY || this.#bytes > FINISHED_BUDGET_BYTES)
      this.forget(this.#entries.keys().next().value!);
  }

  forget(token: string): void {
    const hit = this.#entries.get(token);
    if (hit === undefined) return;
    this.#entries.delete(token);
    this.#bytes -= hit.bytes;
  }
}
