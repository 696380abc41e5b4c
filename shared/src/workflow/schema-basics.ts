import { z } from "zod";
import { isWholeTemplate } from "./expressions-check";
import { isPlainObject } from "./value-types";

export const STEP_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_-]*$/;
export const NAME_RULE = "start with a letter or `_` and use only letters, digits, `_` and `-`";

/**
 * Object-level checks normally run only when every field already parsed; these run on any
 * mapping so that one parse reports all of a step's mistakes at once. Their callbacks therefore
 * read fields defensively.
 */
export const ON_ANY_MAPPING = { when: (payload: { value: unknown }) => isPlainObject(payload.value) };

export const JsonValueSchema = z
  .json()
  .meta({ id: "JsonValue", description: "Any YAML/JSON value; `{{ }}` templates inside strings are evaluated." });
export type JsonValue = z.output<typeof JsonValueSchema>;

export const TemplateOrListSchema = z.union([
  z
    .string()
    .refine(
      isWholeTemplate,
      'must be a list or one whole `{{ … }}` template that yields a list, e.g. "{{ steps.fetch.output.rows }}"',
    ),
  z.array(JsonValueSchema),
]);
