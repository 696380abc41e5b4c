import { jsonKeeping, jsonTextOf, withJsonField } from "../text/json-texts";

/**
 * An execution event's JSON, as published and as an execution record's outbox holds it: an output in its data
 * (`step_completed`, `exec_completed`) written from the text its runner wrote, where it is kept (json-texts.ts).
 */
export function eventJson(event: object): string {
  const data = (event as { data?: unknown }).data;
  if (typeof data !== "object" || data === null || Array.isArray(data)) return JSON.stringify(event);
  const fields = data as Record<string, unknown>;
  if (jsonTextOf(fields.output) === undefined) return JSON.stringify(event);
  return withJsonField(JSON.stringify({ ...event, data: undefined }), "data", jsonKeeping(fields, "output"));
}
