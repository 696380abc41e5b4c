import { useMemo, useRef, useState, type RefObject } from "react";
import { applyOperation, rangeOf, type CanvasOperation } from "@wf/shared/canvas";
import type { WorkflowEditor } from "../../editor";
import { shortcutLabel } from "../../app/shortcuts";
import { useToast } from "../../ui/toast";
import { shownNodeAt, type Read } from "./canvas-sync";
import type { Positions } from "./layout-positions";
import { stepValues } from "./step-values";
import { useLayoutPositions } from "./useLayoutPositions";
import { useWorkflowGraph } from "./useWorkflowGraph";

interface Options {
  editor: RefObject<WorkflowEditor | null>;
  text: string;
  positions: Positions;
  workflowId: string | null;
  canEdit: boolean;
}

/**
 * The canvas and the YAML editor as one document. The text stays the only truth: the canvas is
 * drawn from it, and every change made on the canvas is a canvas operation applied to the editor
 * as one transaction, so the editor's undo history is the history of both.
 */
export function useEditorCanvas({ editor, text, positions, workflowId, canEdit }: Options) {
  const toast = useToast();
  const [selected, setSelected] = useState<string | null>(null);
  // Steps selected besides it (shift/ctrl-click, Shift+Enter), for wrapping several at once.
  const [also, setAlso] = useState<readonly string[]>([]);
  // Where the person put the cursor, until the graph of the text they typed is read.
  const cursor = useRef<number | null>(null);

  /**
   * The node under the cursor, once the graph is of the text the cursor is in (a rename typed there selects the renamed
   * node; a problem picked in the list, the node it is marked on).
   */
  const followCursor = (read: Read) => {
    if (cursor.current === null || editor.current?.text() !== read.text) return;
    setSelected(shownNodeAt(read, cursor.current) ?? null);
    setAlso([]);
    cursor.current = null;
  };
  const sync = useWorkflowGraph(text, followCursor);
  const layout = useLayoutPositions(workflowId, positions, canEdit);

  /** Selecting on the canvas selects the step's lines in the editor. */
  const select = (id: string | null) => {
    setSelected(id);
    setAlso([]);
    const now = editor.current?.text();
    const range = id === null || now === undefined ? undefined : rangeOf(sync.graphOf(now), id);
    // The step's last line, not the start of the next one.
    if (range) editor.current?.select(range.start, now?.[range.end - 1] === "\n" ? range.end - 1 : range.end);
  };

  /** Applies `op` to the text; answers why the text was left as it was, if it was refused. */
  const operate = (op: CanvasOperation): string | undefined => {
    const view = editor.current;
    if (!view || !canEdit) return undefined;
    const result = applyOperation(view.text(), op);
    if (!result.ok) {
      const why = `Not changed: ${result.error}`;
      toast(why, "error");
      return why;
    }
    if (result.edits.length === 0) return undefined;
    const drawn = sync.shown;
    view.applyEdits(result.edits);
    sync.update(result.text, true);
    layout.afterOperation(op, result, drawn);
    if (result.warnings.length > 0) {
      toast(
        `${result.warnings.map((w) => `Line ${w.range.startLine}: ${w.message}`).join("; ")}. ${shortcutLabel("mod+z")} undoes it.`,
        "error",
      );
    }
    select(op.kind === "deleteStep" || op.kind === "unwrap" ? null : (result.id ?? selected));
    return undefined;
  };

  /** A step added to the selection, or taken out of it; the first selected stays the one the panel shows. */
  const extend = (id: string) => {
    if (selected === null) select(id);
    else if (id !== selected) setAlso((now) => (now.includes(id) ? now.filter((each) => each !== id) : [...now, id]));
  };

  const selectedNode = sync.shown.nodes.find((node) => node.id === selected);
  // The selection that is still drawn: a step deleted or renamed in the text drops out of it.
  const alsoDrawn = useMemo(() => {
    const drawn = new Set(sync.shown.nodes.map((node) => node.id));
    return also.filter((id) => drawn.has(id));
  }, [also, sync.shown]);
  // The panel edits what the text says, so only while the text validates (the canvas then draws it as it is).
  const valid = sync.good !== null && sync.current === sync.good.graph;
  const values = useMemo(
    () => (selectedNode && valid ? stepValues(sync.text) : null),
    [sync.text, valid, selectedNode !== undefined],
  );

  return {
    graph: sync.shown,
    /** Whether the canvas draws the last valid version, the text's problems placed on it. */
    stale: sync.good !== null && !valid,
    positions: layout.positions,
    move: layout.move,
    storeLayoutFor: layout.storeFor,
    selected,
    also: alsoDrawn,
    /** Every selected step, the panel's first. */
    group: selected === null ? [] : [selected, ...alsoDrawn],
    extend,
    selectedNode,
    /** The text the graph and the selected step's values were read from. */
    text: sync.text,
    /** The selected step as the file writes it; undefined while the text does not validate. */
    selectedValues: selectedNode ? values?.get(selectedNode.id) : undefined,
    select,
    deselect: () => select(null),
    operate,
    /** Every change of the editor's text. */
    onText: (now: string) => sync.update(now),
    onCursor: (offset: number) => {
      cursor.current = offset;
      followCursor(sync);
    },
  };
}
