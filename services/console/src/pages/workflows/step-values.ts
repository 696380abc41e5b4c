// The validator's own parse, for the file's values as written: the public parseWorkflow answers the
// model with its defaults filled in, which the form would show as if the file said them. The
// canvas's graph of the same text has just validated it: `validated` answers that again.
import { validated } from "@wf/shared/canvas";

export type StepValues = ReadonlyMap<string, Record<string, unknown>>;

function record(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function collect(list: unknown, out: Map<string, Record<string, unknown>>): void {
  if (!Array.isArray(list)) return;
  for (const step of list) {
    if (!record(step)) continue;
    if (typeof step.name === "string") out.set(step.name, step);
    collect(step.steps, out);
    if (record(step.branches)) for (const branch of Object.values(step.branches)) collect(branch, out);
  }
}

/**
 * Each step's fields as the file writes them, by step name (nested steps included); empty when the text does not
 * validate.
 */
export function stepValues(text: string): StepValues {
  const result = validated(text);
  const out = new Map<string, Record<string, unknown>>();
  if (result.ok) {
    const root: unknown = result.yaml.toJS();
    if (record(root)) collect(root.steps, out);
  }
  return out;
}
