import { createContext, useContext } from "react";

/** An input that a picked output field can go into: the YAML editor, or a text field of the step panel. */
export interface InsertTarget {
  /** Said after an insert: "the YAML, line 12", "field output". */
  name: string;
  /** Puts `text` at the input's cursor; answers where it went, or null when it could not. */
  insert(text: string): string | null;
}

/**
 * The insertable input focused last, kept while the focus moves on to the output being picked
 * from. An input forgets itself when it goes away, and only if it is still the one remembered.
 */
export class InsertTargets {
  private last: InsertTarget | null = null;

  remember(target: InsertTarget): void {
    this.last = target;
  }

  forget(target: InsertTarget): void {
    if (this.last === target) this.last = null;
  }

  /** Puts `text` in the input focused last: where it went, or null when there is none (or it refused). */
  insert(text: string): string | null {
    return this.last?.insert(text) ?? null;
  }
}

/** The editor page provides one; elsewhere (the execution page) there is nowhere to insert. */
export const InsertTargetsContext = createContext<InsertTargets | null>(null);

export function useInsertTargets(): InsertTargets | null {
  return useContext(InsertTargetsContext);
}
