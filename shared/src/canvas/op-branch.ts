import { isMap, isScalar } from "yaml";
import { collectionPair } from "./collections";
import { runOperation } from "./edits";
import { seqIndent } from "./layout";
import { namesFor } from "./op-steps";
import { addPair } from "./pairs";
import { pairOf } from "./steps";
import type { EditResult } from "./types";

export interface AddBranchOp {
  /** The parallel step. */
  id: string;
}

/**
 * Adds a branch after a parallel step's last one: `branch_<n>`, the first such name free, with one transform step in
 * it (a branch needs a step), written as the file writes its lists. The new step is the one to select.
 */
export function addBranch(text: string, op: AddBranchOp): EditResult {
  return runOperation(text, (source, tree) => {
    const site = tree.byId.get(op.id);
    if (!site || site.type !== "parallel") return `no parallel step \`${op.id}\``;
    const branches = pairOf(site.map, "branches")?.value;
    if (!isMap(branches)) return `step \`${op.id}\` has no mapping \`branches\` to add a branch to`;
    const taken = new Set(branches.items.map((pair) => (isScalar(pair.key) ? String(pair.key.value) : "")));
    let n = taken.size;
    let branch: string;
    do branch = `branch_${++n}`;
    while (taken.has(branch));
    const name = namesFor(tree, undefined)();
    const steps = [{ name, type: "transform", output: {} }];
    const indentSeq = seqIndent(source, tree) > 0;
    const edit = addPair(
      source.text,
      branches,
      (keyCol, flow) => collectionPair(branch, steps, keyCol, flow, indentSeq, { kind: "fresh" }),
      [],
    );
    return { edits: [edit], id: name };
  });
}
