import { definitionJson, isShared } from "../execution/parsed-definitions";
import { definitionRef, type StoredDefinitions } from "../nats/stored-definitions";
import { jsonTextOf } from "../text/json-texts";
import { outboxForm } from "./outbox-form";
import { isPlainObject, type RecordForm } from "./stored-form";

/**
 * How an execution record is written, for the KV store: its outbox compacted (outbox-form.ts), and its definition
 * named by reference where it is stored (stored-definitions.ts: the start command named it so), or else written from
 * the JSON kept for it. Every execution of a workflow version shares one frozen definition (parsed-definitions.ts),
 * often the record's largest part, its code and prompts: every write of the record would serialise it again, and every
 * record kept it at rest. A definition written whole comes last in the JSON; readers take fields by name.
 */
export function executionForm(definitions: StoredDefinitions): RecordForm {
  return {
    compact: outboxForm.compact,
    restore(stored) {
      const restored = outboxForm.restore(stored);
      if (!isPlainObject(restored) || typeof restored.definitionRef !== "string" || "definition" in restored)
        return restored;
      const { definitionRef, ...rest } = restored;
      // A definition stored nowhere (its bucket removed by hand) leaves the record readable, its definition null.
      const owner = typeof rest.ownerId === "string" ? rest.ownerId : "";
      return definitions.get(definitionRef, owner).then((definition) => ({ ...rest, definition }));
    },
    stringify(compacted) {
      if (!isPlainObject(compacted)) return JSON.stringify(compacted);
      if (!isShared(compacted.definition)) return recordJson(compacted);
      const ref = definitions.storedRef(compacted.definition);
      const rest = recordJson({ ...compacted, definition: undefined });
      const field =
        ref === undefined ? `"definition":${definitionJson(compacted.definition)}` : namedDefinitionField(ref);
      return withField(rest, field);
    },
  };
}

/**
 * A record's JSON, each step's output written from the text its runner wrote where it is known (json-texts.ts), after
 * the step's other fields: the record is written at each of the run's writes, and outputs are most of a large one.
 */
function recordJson(record: Record<string, unknown>): string {
  const steps = record.steps;
  if (!isPlainObject(steps) || !Object.values(steps).some((state) => outputText(state) !== undefined))
    return JSON.stringify(record);
  const fields: string[] = [];
  for (const [path, state] of Object.entries(steps)) {
    if (state === undefined) continue;
    const text = outputText(state);
    const json =
      text === undefined
        ? JSON.stringify(state)
        : withField(JSON.stringify({ ...(state as object), output: undefined }), `"output":${text}`);
    fields.push(`${JSON.stringify(path)}:${json}`);
  }
  return withField(JSON.stringify({ ...record, steps: undefined }), `"steps":{${fields.join(",")}}`);
}

function outputText(state: unknown): string | undefined {
  return isPlainObject(state) ? jsonTextOf(state.output) : undefined;
}

/** An object's JSON with `field` (`"name":<JSON>`) added last. */
function withField(json: string, field: string): string {
  return json === "{}" ? `{${field}}` : `${json.slice(0, -1)},${field}}`;
}

/** A record's field naming its definition by reference, in place of `"definition":<its JSON>`. */
function namedDefinitionField(ref: string): string {
  return `"definitionRef":"${ref}"`;
}

/** What naming a definition takes of a record: the field, and the comma before it (every reference is as long). */
export const NAMED_DEFINITION_BYTES = `,${namedDefinitionField(definitionRef(""))}`.length;
