import type { CollectionValue, ScalarValue } from "@wf/shared/canvas";

/** A field's new value: a scalar, or a list or a mapping typed as YAML. */
export type FieldValue = ScalarValue | CollectionValue;

/** How a step panel field writes its value back into the YAML. */
export interface FieldChange {
  /** `typed`: a list or mapping as the person wrote it, comments and all, to write as it is where it can be. */
  set(value: FieldValue, typed?: string): void;
  remove(): void;
}
