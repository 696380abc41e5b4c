import { HighlightStyle, syntaxHighlighting } from "@codemirror/language";
import { EditorView } from "@codemirror/view";
import { tags as t } from "@lezer/highlight";

/**
 * The editor in the console's colours: every colour is a theme variable of styles.css, so the
 * light and dark themes (switched on <html>) restyle the editor with no reconfiguration.
 */
const chrome = EditorView.theme({
  "&": { height: "100%", backgroundColor: "var(--panel)", color: "var(--text)", fontSize: "13px" },
  "&.cm-focused": { outline: "none" },
  ".cm-scroller": {
    fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace',
    lineHeight: "1.55",
  },
  ".cm-content": { caretColor: "var(--text)" },
  ".cm-cursor, .cm-dropCursor": { borderLeftColor: "var(--text)" },
  ".cm-gutters": { backgroundColor: "var(--panel-2)", color: "var(--muted)", borderRight: "1px solid var(--border)" },
  ".cm-activeLine": { backgroundColor: "color-mix(in srgb, var(--accent-soft) 55%, transparent)" },
  ".cm-activeLineGutter": { backgroundColor: "var(--accent-soft)", color: "var(--text)" },
  "&.cm-focused > .cm-scroller > .cm-selectionLayer .cm-selectionBackground, .cm-selectionBackground, .cm-content ::selection":
    {
      backgroundColor: "color-mix(in srgb, var(--accent) 28%, transparent)",
    },
  ".cm-selectionMatch": { backgroundColor: "color-mix(in srgb, var(--warn) 22%, transparent)" },
  ".cm-matchingBracket, &.cm-focused .cm-matchingBracket": {
    backgroundColor: "color-mix(in srgb, var(--ok) 25%, transparent)",
    outline: "none",
  },
  ".cm-searchMatch": { backgroundColor: "var(--warn-soft)", outline: "1px solid var(--warn)" },
  ".cm-searchMatch.cm-searchMatch-selected": { backgroundColor: "color-mix(in srgb, var(--warn) 40%, transparent)" },
  ".cm-foldPlaceholder": {
    backgroundColor: "var(--panel-2)",
    border: "1px solid var(--border)",
    color: "var(--muted)",
  },
  ".cm-panels": { backgroundColor: "var(--panel-2)", color: "var(--text)" },
  ".cm-panels-bottom": { borderTop: "1px solid var(--border)" },
  ".cm-panels-top": { borderBottom: "1px solid var(--border)" },
  ".cm-panel input, .cm-panel button": { fontSize: "12px" },
  // What Tab does here (index.ts, tabKeys): its room is kept, so the text does not move when the editor takes the
  // focus.
  ".cm-tab-hint": { padding: "3px 8px", fontSize: "12px", color: "var(--text)", fontFamily: "system-ui, sans-serif" },
  "&:not(.cm-focused) .cm-tab-hint": { visibility: "hidden" },
  ".cm-tooltip": {
    backgroundColor: "var(--panel)",
    color: "var(--text)",
    border: "1px solid var(--border)",
    borderRadius: "6px",
    boxShadow: "var(--shadow)",
  },
  ".cm-tooltip-autocomplete > ul": { maxHeight: "16em" },
  ".cm-tooltip-autocomplete > ul > li": { padding: "2px 8px" },
  ".cm-tooltip-autocomplete > ul > li[aria-selected]": {
    backgroundColor: "var(--accent)",
    color: "var(--accent-text)",
  },
  ".cm-completionDetail": { color: "var(--muted)", fontStyle: "normal", marginLeft: "1em" },
  "li[aria-selected] .cm-completionDetail": { color: "inherit", opacity: "0.85" },
  ".cm-completionInfo": { padding: "6px 8px", maxWidth: "360px", whiteSpace: "normal" },
  // A step output's value on hover (output-hover.ts): short enough never to scroll.
  ".cm-known-value": { padding: "6px 8px", maxWidth: "min(640px, 80vw)" },
  ".cm-known-value-title": { fontSize: "12px", color: "var(--muted)", marginBottom: "4px" },
  ".cm-known-value pre": { margin: 0, fontSize: "12px", whiteSpace: "pre", overflow: "hidden" },
  // The expression at the cursor's result (expression-preview.ts): a few lines under it, marked by what it is. It may
  // lie over the canvas or the step panel beside the editor: a click there goes through to what it covers.
  ".cm-expression-preview": {
    pointerEvents: "none",
    padding: "6px 8px",
    maxWidth: "min(560px, 70vw)",
    borderLeft: "4px solid var(--accent)",
  },
  ".cm-expression-preview[data-kind=error]": { borderLeftColor: "var(--danger)" },
  ".cm-expression-preview[data-kind=unknown], .cm-expression-preview[data-kind=secret], .cm-expression-preview[data-kind=timeout]":
    { borderLeftColor: "var(--warn)" },
  ".cm-expression-preview-title": { fontSize: "12px", color: "var(--muted)", marginBottom: "4px" },
  ".cm-expression-preview pre": { margin: 0, fontSize: "12px", whiteSpace: "pre-wrap", overflowWrap: "anywhere" },
  ".cm-expression-preview-item": { fontSize: "12px", color: "var(--muted)", marginTop: "4px" },
  ".cm-expression-preview-where": { fontSize: "12px", color: "var(--muted)", marginTop: "4px" },
  // The field's rendering, apart from the expression's result above it.
  ".cm-expression-preview .cm-expression-preview-field": {
    marginTop: "4px",
    paddingTop: "4px",
    borderTop: "1px solid var(--border)",
  },
  ".cm-diagnostic": { padding: "4px 8px" },
  ".cm-diagnostic-error": { borderLeft: "4px solid var(--danger)" },
  ".cm-lint-marker": { width: "0.9em", height: "0.9em" },
});

const colours = HighlightStyle.define([
  { tag: t.definition(t.propertyName), color: "var(--info)" },
  { tag: [t.string, t.special(t.string)], color: "var(--ok)" },
  { tag: t.lineComment, color: "var(--muted)", fontStyle: "italic" },
  { tag: [t.meta, t.labelName, t.typeName, t.keyword, t.attributeValue], color: "var(--accent)" },
  { tag: t.separator, color: "var(--muted)" },
]);

export const consoleTheme = [chrome, syntaxHighlighting(colours)];
