import { hoverTooltip } from "@codemirror/view";
import { glance } from "./glance";
import { outputExpression, outputPathAt, valueAt } from "./output-paths";

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
