import {
  removeField,
  setCollection,
  setField,
  toggleModifier,
  type RemoveFieldOp,
  type SetCollectionOp,
  type SetFieldOp,
  type ToggleModifierOp,
} from "./op-fields";
import { addBranch, type AddBranchOp } from "./op-branch";
import { setLanguage, type SetLanguageOp } from "./op-language";
import { renameStep, type RenameStepOp } from "./op-rename";
import { addStep, deleteStep, moveStep, type AddStepOp, type DeleteStepOp, type MoveStepOp } from "./op-steps";
import { unwrap, wrapInForeach, wrapInParallel, type UnwrapOp, type WrapOp } from "./op-wrap";
import type { EditResult } from "./types";

/** Every canvas operation as data, for an undo log, a command palette or a test that runs them all alike. */
export type CanvasOperation =
  | ({ kind: "addStep" } & AddStepOp)
  | ({ kind: "deleteStep" } & DeleteStepOp)
  | ({ kind: "renameStep" } & RenameStepOp)
  | ({ kind: "moveStep" } & MoveStepOp)
  | ({ kind: "wrapInForeach" } & WrapOp)
  | ({ kind: "wrapInParallel" } & WrapOp)
  | ({ kind: "unwrap" } & UnwrapOp)
  | ({ kind: "addBranch" } & AddBranchOp)
  | ({ kind: "setField" } & SetFieldOp)
  | ({ kind: "setCollection" } & SetCollectionOp)
  | ({ kind: "setLanguage" } & SetLanguageOp)
  | ({ kind: "removeField" } & RemoveFieldOp)
  | ({ kind: "toggleModifier" } & ToggleModifierOp);

export function applyOperation(text: string, op: CanvasOperation): EditResult {
  switch (op.kind) {
    case "addStep":
      return addStep(text, op);
    case "deleteStep":
      return deleteStep(text, op);
    case "renameStep":
      return renameStep(text, op);
    case "moveStep":
      return moveStep(text, op);
    case "wrapInForeach":
      return wrapInForeach(text, op);
    case "wrapInParallel":
      return wrapInParallel(text, op);
    case "unwrap":
      return unwrap(text, op);
    case "addBranch":
      return addBranch(text, op);
    case "setField":
      return setField(text, op);
    case "setCollection":
      return setCollection(text, op);
    case "setLanguage":
      return setLanguage(text, op);
    case "removeField":
      return removeField(text, op);
    case "toggleModifier":
      return toggleModifier(text, op);
  }
}
