import { hoverTooltip } from "@codemirror/view";
import { outputExpression, outputPathAt, valueAt } from "./output-paths";

/** What a value shown on hover holds at most: a glance at the data, not a viewer (the step's page has it whole). */
const SHOWN_LINES = 16;
const SHOWN_LINE_CHARS = 100;

/** The value as indented JSON, cut to SHOWN_LINES lines of SHOWN_LINE_CHARS, saying what was left out. */
export function glance(value: unknown): string {
  const lines = (JSON.stringify(value, null, 2) ?? "undefined").split("\n");
  const shown = lines
    .slice(0, SHOWN_LINES)
    .map((line) => (line.length > SHOWN_LINE_CHARS ? `${line.slice(0, SHOWN_LINE_CHARS - 1)}…` : line));
  const left = lines.length - shown.length;
  return left > 0 ? `${shown.join("\n")}\n… ${left} more line${left === 1 ? "" : "s"}` : shown.join("\n");
}

/**
 * Hovering a `steps.<name>.output…` path in an expression shows the known value there (the latest run's, a pin's or a
 * step test's: `known`, asked at each hover), up to the segment under the pointer.
 */
export function outputHover(known: () => Readonly<Record<string, unknown>>) {
  return hoverTooltip((view, pos) => {
    const line = view.state.doc.lineAt(pos);
    const at = outputPathAt(line.text, pos - line.from);
    const outputs = known();
    if (!at || !Object.hasOwn(outputs, at.step)) return null;
    const value = valueAt(outputs[at.step], at.path);
    return {
      pos: line.from + at.from,
      end: line.from + at.to,
      above: true,
      create() {
        const dom = document.createElement("div");
        dom.className = "cm-known-value";
        const title = document.createElement("div");
        title.className = "cm-known-value-title";
        title.textContent = `${outputExpression(at.step, at.path)}, as last known`;
        const body = document.createElement("pre");
        body.textContent = value === undefined ? "not in the known output" : glance(value);
        dom.append(title, body);
        return { dom };
      },
    };
  });
}
