import { expect } from "vitest";
import { validateWorkflowText } from "../../workflow/validate";
import type { EditResult } from "../index";

/** The text an edit made, which must be a valid workflow; an edit refused throws its error. */
export function editedText(result: EditResult): string {
  if (!result.ok) throw new Error(result.error);
  expect(validateWorkflowText(result.text).ok).toBe(true);
  return result.text;
}
