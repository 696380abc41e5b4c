import { isScalar } from "yaml";
import { STEP_NAME_PATTERN } from "../workflow/schema-basics";
import { runOperation } from "./edits";
import { findReferences, stepRef } from "./references";
import { scalarEdit } from "./scalars";
import { pairOf } from "./steps";
import type { EditResult } from "./types";

export interface RenameStepOp {
  id: string;
  name: string;
}

/**
 * Renames a step and every `steps.<old>` that reads it, each rewritten inside its own string so
 * the quoting and everything else on those lines stays.
 */
export function renameStep(text: string, op: RenameStepOp): EditResult {
  return runOperation(text, (source, tree) => {
    const site = tree.byId.get(op.id);
    if (!site) return `no step \`${op.id}\``;
    const oldName = site.name;
    if (oldName === op.name) return { edits: [], id: site.id };
    if (!STEP_NAME_PATTERN.test(op.name))
      return `\`${op.name}\` is not a valid step name: start with a letter or \`_\` and use only letters, digits, \`_\` and \`-\``;
    if (tree.steps.some((other) => other.name === op.name)) return `a step named \`${op.name}\` already exists`;
    const node = pairOf(site.map, "name")?.value;
    if (oldName === undefined || !isScalar(node)) return `step \`${op.id}\` has no name to change`;
    const nameEdit = scalarEdit(source.text, node, [...site.path, "name"], op.name, site.map.flow === true);
    if (!nameEdit) return `\`${op.name}\` cannot be written as a step name here`;
    // A duplicate name resolves to its first step, so only that step's rename moves the references.
    const moves = tree.byId.get(oldName) === site;
    const refs = moves ? findReferences(source, tree).filter((ref) => ref.name === oldName) : [];
    return {
      edits: [nameEdit, ...refs.map((ref) => ({ from: ref.start, to: ref.end, insert: stepRef(op.name) }))],
      id: op.name,
    };
  });
}
