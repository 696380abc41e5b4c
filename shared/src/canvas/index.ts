/**
 * The model between a workflow's YAML text and the visual canvas (pure: no DOM, no Node APIs). The
 * text stays the source of truth: `graph` reads it (never throwing), and every operation returns new
 * text made of minimal splices, so what it does not concern stays byte for byte. A node's id is its
 * step name (else its YAML path); a step carries its comment lines along. Deleting a step others read
 * leaves warnings (`isUnknownStepIssue`); any other operation that would make a valid file invalid is refused.
 */
export { graph } from "./graph";
export { readSource, type Source } from "./source";
export { nodeAt, rangeOf } from "./cursor";
export { addStep, deleteStep, moveStep, type AddStepOp, type DeleteStepOp, type MoveStepOp } from "./op-steps";
export { addBranch, type AddBranchOp } from "./op-branch";
export { renameStep, type RenameStepOp } from "./op-rename";
export { wrapInForeach, wrapInParallel, unwrap, type WrapOp, type UnwrapOp } from "./op-wrap";
export {
  setField,
  setCollection,
  removeField,
  toggleModifier,
  type SetFieldOp,
  type SetCollectionOp,
  type RemoveFieldOp,
  type ToggleModifierOp,
} from "./op-fields";
export { setLanguage, type SetLanguageOp } from "./op-language";
export { applyOperation, type CanvasOperation } from "./operations";
export { splitKeyComment } from "./field-text";
export { writtenFields } from "./written-fields";
export { validated } from "./validation";
export { isUnknownStepIssue } from "../workflow/semantic";
export type { ScalarValue } from "./scalars";
export type { CollectionValue } from "./types";
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
