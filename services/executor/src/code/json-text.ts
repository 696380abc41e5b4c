import { jsonTextOf } from "@wf/shared/text";

/**
 * A step's input or output as its JSON text, where a process only carries it: the JavaScript host hands an input's text
 * to the isolate and an output's text back, and a runner relaying to its host passes both on, each without making the
 * value and writing it again (protocol.ts). On a 2-vCPU guest, a JSON.parse of a MiB of records took 5 ms and a
 * JSON.stringify of it 12 ms, each made once or twice per step and direction before.
 */
export class JsonText {
  constructor(readonly text: string) {}
}

/**
 * The JSON of `value` (null for undefined): its text as it came where it is one already, or the text kept for it (an
 * earlier step's output passed on whole: json-texts.ts).
 */
export function jsonOf(value: unknown): string {
  if (value instanceof JsonText) return value.text;
  return jsonTextOf(value) ?? JSON.stringify(value ?? null) ?? "null";
}

/** The value itself, parsed where it came as text. */
export function valueOf(value: unknown): unknown {
  return value instanceof JsonText ? (JSON.parse(value.text) as unknown) : value;
}
