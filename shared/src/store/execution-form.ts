import { definitionJson, isShared } from "../execution/parsed-definitions";
import { definitionRef, type StoredDefinitions } from "../nats/stored-definitions";
import { eventJson } from "../execution/event-json";
import { jsonKeeping, jsonTextOf, withJsonField } from "../text/json-texts";
import { outboxForm } from "./outbox-form";
import { isPlainObject, type RecordForm } from "./stored-form";

/**
 * How an execution record is written, for the KV store: its outbox compacted (outbox-form.ts), and its definition
 * named by reference where it is stored (stored-definitions.ts: the start command named it so), or else written from
 * the JSON kept for it. Every execution of a workflow version shares one frozen definition (parsed-definitions.ts),
 * often the record's largest part, its code and prompts: every write of the record would serialise it again, and every
 * record kept it at rest. A definition written whole comes last in the JSON; readers take fields by name. Large
 * variables frozen and stored the same way (ExecutionRepo.nameVariables) are named too, as `varsRef`.
 */
export function executionForm(definitions: StoredDefinitions): RecordForm {
  return {
    compact: outboxForm.compact,
    restore(stored) {
      const restored = outboxForm.restore(stored);
      if (!isPlainObject(restored)) return restored;
      const { definitionRef, varsRef, ...rest } = restored;
      const named = typeof definitionRef === "string" && !("definition" in restored);
      const namedVars = typeof varsRef === "string" && !("vars" in restored);
      if (!named && !namedVars) return restored;
      const owner = typeof rest.ownerId === "string" ? rest.ownerId : "";
      // A value stored nowhere (its bucket removed by hand) leaves the record readable: its definition null, no variables.
      return Promise.all([
        named ? definitions.get(definitionRef, owner) : rest.definition,
        namedVars ? definitions.get(varsRef, owner, "value").then((vars) => vars ?? {}) : rest.vars,
      ]).then(([definition, vars]) => ({ ...rest, definition, vars }));
    },
    stringify(compacted) {
      if (!isPlainObject(compacted)) return JSON.stringify(compacted);
      const varsRef = isShared(compacted.vars) ? definitions.storedRef(compacted.vars) : undefined;
      const record = varsRef === undefined ? compacted : { ...compacted, vars: undefined };
      const written = isShared(record.definition) ? definitionNamed(record, definitions) : recordJson(record);
      return varsRef === undefined ? written : withJsonField(written, "varsRef", namedDefinitionJson(varsRef));
    },
  };
}

/** A record's JSON, its shared definition named by reference where it is stored, or else written from its kept JSON. */
function definitionNamed(record: Record<string, unknown>, definitions: StoredDefinitions): string {
  const ref = definitions.storedRef(record.definition);
  const rest = recordJson({ ...record, definition: undefined });
  return ref === undefined
    ? withJsonField(rest, "definition", definitionJson(record.definition))
    : withJsonField(rest, "definitionRef", namedDefinitionJson(ref));
}

/**
 * A record's JSON, each output in it written from the text its runner wrote where it is kept (json-texts.ts): the
 * steps', the events' of its outbox and its own, each after the other fields of what holds it. The record is written at
 * each of the run's writes, and outputs are most of a large one.
 */
function recordJson(record: Record<string, unknown>): string {
  const { steps, outbox } = record;
  const fields: [string, string][] = [];
  if (isPlainObject(steps) && Object.values(steps).some((state) => isPlainObject(state) && kept(state.output)))
    fields.push(["steps", stepsJson(steps)]);
  if (Array.isArray(outbox) && outbox.some((e) => isPlainObject(e) && isPlainObject(e.data) && kept(e.data.output)))
    fields.push(["outbox", `[${outbox.map((e) => (isPlainObject(e) ? eventJson(e) : JSON.stringify(e))).join(",")}]`]);
  const output = jsonTextOf(record.output);
  if (output !== undefined) fields.push(["output", output]);
  if (fields.length === 0) return JSON.stringify(record);
  const rest = JSON.stringify({ ...record, ...Object.fromEntries(fields.map(([name]) => [name, undefined])) });
  return fields.reduce((json, [name, value]) => withJsonField(json, name, value), rest);
}

function stepsJson(steps: Record<string, unknown>): string {
  const fields: string[] = [];
  for (const [path, state] of Object.entries(steps)) {
    if (state === undefined) continue;
    fields.push(
      `${JSON.stringify(path)}:${isPlainObject(state) ? jsonKeeping(state, "output") : JSON.stringify(state)}`,
    );
  }
  return `{${fields.join(",")}}`;
}

function kept(value: unknown): boolean {
  return jsonTextOf(value) !== undefined;
}

/** The JSON of a record's `definitionRef`, the field naming its definition by reference in place of `definition`. */
function namedDefinitionJson(ref: string): string {
  return JSON.stringify(ref);
}

/**
 * What naming a definition takes of a record: the field and the comma before it, as stringify adds them (every
 * reference is as long).
 */
export const NAMED_DEFINITION_BYTES =
  withJsonField('{"id":""}', "definitionRef", namedDefinitionJson(definitionRef(""))).length - '{"id":""}'.length;
