import { isPair, isScalar, visit } from "yaml";
import type { Source } from "@wf/shared/canvas";
import { TEMPLATE_PART, wholeTemplate } from "@wf/shared/expressions/template-syntax";

/** The expression to preview where the cursor is. */
export interface PreviewTarget {
  /** As the service evaluates it: a template's text trimmed, or a `condition`'s whole value. */
  expression: string;
  /** A `condition`'s value: whether it holds decides if the step runs. */
  condition: boolean;
  /**
   * The whole string value holding the template, as the service reads it, when it renders to a text of its own (text
   * or other templates around the expression); null when the value is the expression's alone.
   */
  field: string | null;
}

const count = (text: string, part: string) => text.split(part).length - 1;

/**
 * The expression the cursor at `offset` is in: the `{{ … }}` of a YAML string value, or a `condition`'s value. Read
 * from the value YAML gives (unquoted, unescaped, folded), as the service reads it, not from the characters on screen.
 */
export function previewTarget(source: Source, offset: number): PreviewTarget | null {
  let found: PreviewTarget | null = null;
  visit(source.doc, {
    Scalar(_, node, path) {
      const [start, end] = node.range ?? [-1, -1];
      if (offset < start || offset > end || typeof node.value !== "string") return undefined;
      const parent = path.at(-1);
      if (isPair(parent) && parent.key === node) return visit.BREAK;
      if (isPair(parent) && isScalar(parent.key) && parent.key.value === "condition") {
        found = { expression: node.value, condition: true, field: null };
        return visit.BREAK;
      }
      // The n-th `{{` before the cursor opens the n-th template of the value: quoting does not make or hide one.
      const before = source.text.slice(start, offset);
      const nth = count(before, "{{");
      const template = [...node.value.matchAll(TEMPLATE_PART)][nth - 1];
      if (nth > 0 && template !== undefined && count(before.slice(before.lastIndexOf("{{")), "}}") === 0)
        found = {
          expression: template[1]!.trim(),
          condition: false,
          field: wholeTemplate(node.value) === null ? node.value : null,
        };
      return visit.BREAK;
    },
  });
  return found;
}
