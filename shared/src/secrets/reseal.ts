import { WfError } from "../errors/wf-error";
import type { Versioned } from "../store/port";
import type { ResealOutcome } from "./legacy-key";
import type { SecretBox } from "./secret-box";

/** A kind of record holding one sealed value, as a re-sealing pass reads and writes it. */
export interface SealedRecords<R extends { id: string }> {
  listAll(): Promise<R[]>;
  get(id: string): Promise<Versioned<R> | null>;
  update(record: R, expectedVersion: number): Promise<number>;
  /** The sealed value and the context it was sealed for; null when the record holds none. */
  sealed(record: R): { text: string; context: string } | null;
  withSealed(record: R, text: string): R;
}

/**
 * Moves every record sealed under `from` to `to`, one compare-and-set write each. Whatever
 * already opens under `to` is left alone, so the pass can run again after a crash, or in two
 * processes at once: a write that loses reads the record again and finds it done (or changed
 * by its owner, under `to`).
 */
export async function resealAll<R extends { id: string }>(
  records: SealedRecords<R>,
  from: SecretBox,
  to: SecretBox,
): Promise<ResealOutcome> {
  const outcome: ResealOutcome = { resealed: 0, unreadable: [] };
  for (const { id } of await records.listAll()) {
    for (;;) {
      const current = await records.get(id);
      const sealed = current && records.sealed(current.value);
      if (!current || !sealed || opens(to, sealed)) break;
      if (!opens(from, sealed)) {
        outcome.unreadable.push(id);
        break;
      }
      const plain = from.open(sealed.text, sealed.context).toString("utf8");
      try {
        await records.update(records.withSealed(current.value, to.seal(plain, sealed.context)), current.version);
        outcome.resealed += 1;
        break;
      } catch (err) {
        if (!(err instanceof WfError && (err.code === "CAS_CONFLICT" || err.code === "NOT_FOUND"))) throw err;
      }
    }
  }
  return outcome;
}

function opens(box: SecretBox, sealed: { text: string; context: string }): boolean {
  try {
    box.open(sealed.text, sealed.context);
    return true;
  } catch {
    return false;
  }
}
