import { definitionJson, isShared } from "../execution/parsed-definitions";
import { outboxForm } from "./outbox-form";
import { isPlainObject, type RecordForm } from "./stored-form";

/**
 * How an execution record is written: its outbox compacted (outbox-form.ts), and its definition written from the JSON
 * kept for it. Every execution of a workflow version shares one frozen definition (parsed-definitions.ts), and every
 * write of the record would serialise it again: it is often the record's largest part, its code and prompts. The
 * definition comes last in the JSON; readers take fields by name.
 */
export const executionForm: RecordForm = {
  compact: outboxForm.compact,
  restore: outboxForm.restore,
  stringify(compacted) {
    if (!isPlainObject(compacted) || !isShared(compacted.definition)) return JSON.stringify(compacted);
    const rest = JSON.stringify({ ...compacted, definition: undefined });
    const field = `"definition":${definitionJson(compacted.definition)}}`;
    return rest === "{}" ? `{${field}` : `${rest.slice(0, -1)},${field}`;
  },
};
