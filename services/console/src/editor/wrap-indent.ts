import { RangeSetBuilder, type EditorState } from "@codemirror/state";
import { Decoration, EditorView, ViewPlugin, type DecorationSet, type ViewUpdate } from "@codemirror/view";

/**
 * How many columns deeper than its first row a long line's wrapped rows start: past the line's indentation and its
 * list dashes, and one indentation step more, so that a wrapped row never lines up with the keys of the line's own
 * mapping (which would read as YAML structure the text does not have).
 */
export function hangingIndent(line: string): number {
  return /^ *(?:- +)*/.exec(line)![0].length + 2;
}

/** The lines of `ranges`, each drawn with its wrapped rows indented by hangingIndent. */
export function wrapIndents(state: EditorState, ranges: readonly { from: number; to: number }[]): DecorationSet {
  const builder = new RangeSetBuilder<Decoration>();
  for (const { from, to } of ranges) {
    for (let pos = from; pos <= to;) {
      const line = state.doc.lineAt(pos);
      const columns = hangingIndent(line.text);
      // The first row starts where it would (CodeMirror's 6px), the rows after it `columns` further in. A style, not a
      // class: the console's CSP allows what is set through the DOM's style object, which CodeMirror sets it by.
      const style = `padding-left: calc(6px + ${columns}ch); text-indent: -${columns}ch`;
      builder.add(line.from, line.from, Decoration.line({ attributes: { style } }));
      pos = line.to + 1;
    }
  }
  return builder.finish();
}

/**
 * Long lines wrap within the editor, as the pane beside the canvas is narrow: a line longer than it no longer scrolls
 * the text sideways, which hid the start of every line (its indentation, which is YAML's structure) while the cursor
 * was at a long line's end. Its wrapped rows are indented (hangingIndent), and only the first has a line number.
 */
export const wrapLines = [
  EditorView.lineWrapping,
  ViewPlugin.fromClass(
    class {
      decorations: DecorationSet;
      constructor(view: EditorView) {
        this.decorations = wrapIndents(view.state, view.visibleRanges);
      }
      update(update: ViewUpdate) {
        if (update.docChanged || update.viewportChanged)
          this.decorations = wrapIndents(update.state, update.view.visibleRanges);
      }
    },
    { decorations: (plugin) => plugin.decorations },
  ),
];
