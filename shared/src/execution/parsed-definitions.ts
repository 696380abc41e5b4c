import { WorkflowSchema } from "../workflow/index";
import { deepFreeze } from "../deep-freeze";

export type ParsedDefinition = ReturnType<typeof WorkflowSchema.safeParse>;

/**
 * Parses of frozen definitions: a frozen definition is a shared, never-changing record (the
 * edge's recent reads), so its parse is the parse of every start of it. Re-parsing it with zod
 * on every webhook trigger cost the edge about 6% of its CPU.
 */
const byIdentity = new WeakMap<object, ParsedDefinition>();
/**
 * Parses of definitions read from a message or a record, by their JSON: every execution of a
 * workflow version carries the same one, and the executor parsed it twice per start (about 4%
 * of its CPU at a few hundred starts a second); serializing it costs a fraction of parsing it.
 */
const byContent = new Map<string, ParsedDefinition>();
/**
 * Bounded by the JSON kept, not by count: a definition may be as large as a NATS message (and a
 * parse is a few times its JSON). One larger than the limit is parsed every time.
 */
const BY_CONTENT_MAX_CHARS = 4 * 1024 * 1024;
const ONE_MAX_CHARS = 256 * 1024;
let byContentChars = 0;

/**
 * A workflow definition parsed with WorkflowSchema. The result is shared with every other parse
 * of the same definition, its workflow deeply frozen: read it, never change it.
 */
export function parseDefinition(definition: unknown): ParsedDefinition {
  if (typeof definition !== "object" || definition === null) return WorkflowSchema.safeParse(definition);
  if (Object.isFrozen(definition)) {
    let parsed = byIdentity.get(definition);
    if (parsed === undefined) {
      parsed = frozenParse(definition);
      byIdentity.set(definition, parsed);
    }
    return parsed;
  }
  const key = JSON.stringify(definition);
  let parsed = byContent.get(key);
  if (parsed === undefined) {
    parsed = frozenParse(definition);
    if (key.length > ONE_MAX_CHARS) return parsed;
    while (byContentChars + key.length > BY_CONTENT_MAX_CHARS) {
      const oldest = byContent.keys().next().value!;
      byContent.delete(oldest);
      byContentChars -= oldest.length;
    }
    byContent.set(key, parsed);
    byContentChars += key.length;
  }
  return parsed;
}

/** Its workflow frozen; a failure's error is left alone (zod fills some of its fields lazily). */
function frozenParse(definition: object): ParsedDefinition {
  const parsed = WorkflowSchema.safeParse(definition);
  if (parsed.success) deepFreeze(parsed.data);
  return parsed;
}
