import type { ScalarValue } from "@wf/shared/canvas";

/** How a step panel field writes its value back into the YAML. */
export interface FieldChange {
  set(value: ScalarValue): void;
  remove(): void;
}
