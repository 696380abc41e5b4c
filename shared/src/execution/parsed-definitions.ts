import { WorkflowSchema } from "../workflow/index";
import { deepFreeze } from "../deep-freeze";
import { OwnerLru } from "../pools/owner-lru.mjs";

export type ParsedDefinition = ReturnType<typeof WorkflowSchema.safeParse>;

/** What is known of one frozen definition, computed when first asked. */
interface Known {
  parsed?: ParsedDefinition;
  json?: string;
}

/**
 * Frozen definitions: a frozen definition is a shared, never-changing record (the edge's recent reads, or one that
 * `sharedDefinition` made), so its parse and its JSON are those of every execution of it. Re-parsing it with zod on
 * every webhook trigger cost the edge about 6% of its CPU.
 */
const byIdentity = new WeakMap<object, Known>();
/**
 * Definitions read from a message or a record, by their JSON: every execution of a workflow version carries the same
 * one, and the executor parsed it twice per start (about 4% of its CPU at a few hundred starts a second), and wrote it
 * out again to size its record and to look for secrets; serializing it costs a fraction of parsing it. Each maps to
 * a frozen copy of the first such definition seen: the caller's own object is left as it was.
 *
 * Bounded by the JSON kept, not by count: a definition may be as large as a NATS message (and a parse is a few times
 * its JSON). Every tenant's definitions share the room (OwnerLru): one owner's flood of distinct definitions pushes out
 * its own least recently used, not those of owners holding less. One larger than ONE_MAX_CHARS is shared by its
 * holders, not kept for the next.
 */
const BY_CONTENT_MAX_CHARS = 4 * 1024 * 1024;
const ONE_MAX_CHARS = 256 * 1024;
const byContent = new OwnerLru<string, object>(Number.POSITIVE_INFINITY, BY_CONTENT_MAX_CHARS);

/**
 * A definition with the same JSON as `definition` that every holder of it shares, frozen, so that its parse and its
 * JSON are computed once (`parseDefinition`, `definitionJson`). A frozen definition is returned as it is. `owner`:
 * whose workflow it is, whose share of the table a new entry takes.
 */
export function sharedDefinition(definition: unknown, owner: string): unknown {
  if (typeof definition !== "object" || definition === null || isShared(definition)) return definition;
  return sharedDefinitionOfJson(JSON.stringify(definition), owner);
}

/**
 * The shared definition whose JSON is `json`, as `sharedDefinition` gives it, for a caller that read the JSON. One over
 * ONE_MAX_CHARS is a frozen copy of its own, not kept here: frozen all the same, so that its records and commands can
 * name it by reference (stored-definitions.ts) rather than carry it whole at every write.
 */
export function sharedDefinitionOfJson(json: string, owner: string): unknown {
  const kept = byContent.get(json);
  if (kept !== undefined) return kept;
  const copy = frozenOfJson(json);
  if (typeof copy !== "object" || copy === null || json.length > ONE_MAX_CHARS) return copy;
  byContent.set(json, owner, copy, json.length);
  return copy;
}

/** How many definitions are kept by content, and their JSON's characters. */
export function definitionsKept(): { count: number; chars: number } {
  return { count: byContent.count, chars: byContent.size };
}

/**
 * A frozen copy of what `json` holds, its JSON kept with it (`definitionJson`), never kept in the table by content: a
 * value read once, as an execution's variables named by reference are (stored-definitions.ts).
 */
export function frozenOfJson(json: string): unknown {
  return sharedValueOf(JSON.parse(json) as unknown, json);
}

/**
 * `value` itself, frozen in place with `json`, its JSON, kept for it: shared from now on (`isShared`), so that a record
 * can name it by reference as it names a definition (an execution's large variables: execution-form.ts). Nothing may
 * change it after.
 */
export function sharedValueOf<V>(value: V, json: string): V {
  deepFreeze(value);
  if (typeof value === "object" && value !== null) byIdentity.set(value, { json });
  return value;
}

/**
 * A workflow definition parsed with WorkflowSchema. The result is shared with every other parse
 * of the same definition, its workflow deeply frozen: read it, never change it. `owner` as for sharedDefinition.
 */
export function parseDefinition(definition: unknown, owner: string): ParsedDefinition {
  const shared = sharedDefinition(definition, owner);
  if (!isShared(shared)) return frozenParse(shared);
  const known = knownOf(shared);
  known.parsed ??= frozenParse(shared);
  return known.parsed;
}

/** The definition's JSON; kept for a frozen one. */
export function definitionJson(definition: unknown): string {
  if (!isShared(definition)) return JSON.stringify(definition) ?? "";
  const known = knownOf(definition);
  known.json ??= JSON.stringify(definition);
  return known.json;
}

/** Whether `definition` is shared (frozen): its parse and its JSON are kept. */
export function isShared(definition: unknown): definition is object {
  return typeof definition === "object" && definition !== null && Object.isFrozen(definition);
}

function knownOf(definition: object): Known {
  let known = byIdentity.get(definition);
  if (known === undefined) {
    known = {};
    byIdentity.set(definition, known);
  }
  return known;
}

/** Its workflow frozen; a failure's error is left alone (zod fills some of its fields lazily). */
function frozenParse(definition: unknown): ParsedDefinition {
  const parsed = WorkflowSchema.safeParse(definition);
  if (parsed.success) deepFreeze(parsed.data);
  return parsed;
}
