import { validateParsedWorkflow, validateWorkflowText, type ValidationResult } from "../workflow/validate";
import type { Source } from "./source";

let last: { text: string; result: ValidationResult } | undefined;

/**
 * `validateWorkflowText`, remembering the last text it was asked about. The same text is
 * validated several times in a row: the canvas's graph of it and the side panel's values of it,
 * or an operation's check of its result and then the graph of that result; for a long workflow
 * validating is most of what each of them costs. Given the text's `source`, its parse is not
 * made again. The result is shared: read it, never change it.
 */
export function validated(text: string, source?: Source): ValidationResult {
  if (last?.text !== text) {
    last = {
      text,
      result:
        source?.text === text ? validateParsedWorkflow(text, source.doc, source.lines) : validateWorkflowText(text),
    };
  }
  return last.result;
}
