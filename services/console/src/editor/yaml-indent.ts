import { getIndentation, IndentContext, indentService, syntaxTree } from "@codemirror/language";

/**
 * Enter after a line that ends in a comment: the YAML language took the comment for the end of the line's block and
 * gave the new line the indentation of the block around it (a step's key after `count: "{{…}}"  # count them`, so the
 * text no longer validated). The new line is indented as after the same line without its comment; lines without one,
 * and `#` inside quotes or a block scalar (no comment there), are left to the language.
 */
export const yamlIndent = indentService.of((context, pos) => {
  const above = context.lineAt(pos, -1);
  const end = above.from + above.text.length;
  const comment = commentOn(context, above.from, end);
  if (comment === null) return undefined;
  const before = context.state.sliceDoc(above.from, comment);
  // A line that is only a comment: the next one lines up with it.
  if (before.trim() === "") return before.length;
  const cut = above.from + before.trimEnd().length;
  const state = context.state.update({ changes: { from: cut, to: end } }).state;
  return getIndentation(new IndentContext(state, { simulateBreak: cut, simulateDoubleBreak: false }), cut);
});

/** Where the comment on the text from `from` to `to` starts, by the syntax tree; null when there is none. */
function commentOn(context: IndentContext, from: number, to: number): number | null {
  let found: number | null = null;
  syntaxTree(context.state).iterate({
    from,
    to,
    enter(node) {
      if (node.name === "Comment" && node.from >= from && node.to <= to) found = node.from;
    },
  });
  return found;
}
