/**
 * The model between a workflow's YAML text and the visual canvas. The text stays the source of
 * truth: `graph` reads it (never throwing, whatever state it is in), and every operation returns
 * new text made of minimal splices, so comments, quoting, key order and blank lines it does not
 * concern stay byte for byte. Pure: no DOM and no Node APIs of its own.
 *
 * - A node's id is its step name (unique in a valid file), so it survives edits; a step without
 *   a usable name gets its YAML path.
 * - A step carries its comment lines: those above its `-` at its indentation, and those right
 *   below it indented under it. Moving or deleting a step takes them along.
 * - Deleting a step that others read is done, and the references left dangling come back as
 *   warnings, and as the validator's problems at their lines (`isUnknownStepIssue`); any other
 *   operation that would make a valid file invalid is refused instead.
 */
export { graph } from "./graph";
export { nodeAt, rangeOf } from "./cursor";
export { addStep, deleteStep, moveStep, type AddStepOp, type DeleteStepOp, type MoveStepOp } from "./op-steps";
export { renameStep, type RenameStepOp } from "./op-rename";
export { wrapInForeach, wrapInParallel, unwrap, type WrapOp, type UnwrapOp } from "./op-wrap";
export { setField, removeField, toggleModifier, type SetFieldOp, type RemoveFieldOp, type ToggleModifierOp } from "./op-fields";
export { applyOperation, type CanvasOperation } from "./operations";
export { validated } from "./validation";
export { isUnknownStepIssue } from "../workflow/semantic";
export type { ScalarValue } from "./scalars";
export {
  MODIFIERS,
  type Badge,
  type CanvasEdge,
  type CanvasGraph,
  type CanvasGroup,
  type CanvasIssue,
  type CanvasNode,
  type CanvasWarning,
  type EdgeKind,
  type EditFailure,
  type EditResult,
  type EditSuccess,
  type Modifier,
  type SourceRange,
  type StepList,
  type StepReference,
  type TextEdit,
  type TextRange,
} from "./types";
