import type { CollectionValue, ScalarValue } from "@wf/shared/canvas";

/** A field's new value: a scalar, or a list or a mapping typed as YAML. */
export type FieldValue = ScalarValue | CollectionValue;

/** How a step panel field writes its value back into the YAML. */
export interface FieldChange {
  set(value: FieldValue): void;
  remove(): void;
}
