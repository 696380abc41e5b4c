import { hoverTooltip } from "@codemirror/view";
import { glance } from "./glance";
import { outputExpression, outputPathAt, valueAt } from "./output-paths";
import type { OutputsAt } from "./preview-context";

/**
 * Hovering a `steps.<name>.output…` path in an expression shows the known value there (the latest run's, a pin's or a
 * step test's; in a foreach, item 0's run of a step of its item: `known`, asked at each hover), up to the segment under
 * the pointer, when the step runs before the expression's (in an agent's text, before every step using the agent).
 */
export function outputHover(known: OutputsAt) {
  return hoverTooltip((view, pos) => {
    const line = view.state.doc.lineAt(pos);
    const at = outputPathAt(line.text, pos - line.from);
    if (!at) return null;
    const { outputs, itemSteps } = known(view.state.doc.toString(), pos);
    if (!Object.hasOwn(outputs, at.step)) return null;
    const whose = itemSteps.includes(at.step) ? "item 0 of the latest run" : "as last known";
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
        title.textContent = `${outputExpression(at.step, at.path)}, ${whose}`;
        const body = document.createElement("pre");
        body.textContent = value === undefined ? "not in the known output" : glance(value);
        dom.append(title, body);
        return { dom };
      },
    };
  });
}
