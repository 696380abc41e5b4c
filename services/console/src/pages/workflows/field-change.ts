import type { CollectionValue, ScalarValue } from "@wf/shared/canvas";

/** A field's new value: a scalar, or a list or a mapping typed as YAML. */
export type FieldValue = ScalarValue | CollectionValue;

/**
 * How a step panel field writes its value back into the YAML. Each answers why the file was left as it was (a change
 * the workflow would refuse), or undefined once it is written.
 */
export interface FieldChange {
  /**
   * `typed`: the value as the person wrote it, comments and all: a list or mapping to write as it is where it can be; a
   * single value after a comment line keeps that comment on the key's line (see SetFieldOp's `comment`).
   */
  set(value: FieldValue, typed?: string): string | undefined;
  remove(): string | undefined;
}
