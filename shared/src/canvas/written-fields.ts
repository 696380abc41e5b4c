import { blockLines, keyComment, linesText } from "./field-text";
import { findField } from "./op-fields";
import { readSource } from "./source";
import { collectSteps, pairOf } from "./steps";

/**
 * A step's fields as the file writes them, for a person to edit as text: each one holding a block list or mapping with
 * entries is its lines below the key, the comment lines above its first entry and the comments on and between its
 * lines included, flush left, after the comment at the end of the key's line, if any, as a first line of its own (what
 * setCollection's `text` writes back, that first line on the key's line again). Undefined for a field that holds anything
 * else or is not there, and for all of them in text that does not parse.
 */
export function writtenFields(text: string, id: string, keys: readonly (readonly string[])[]): (string | undefined)[] {
  const source = readSource(text);
  if (source.doc.errors.length > 0) return keys.map(() => undefined);
  const tree = collectSteps(source);
  return keys.map((key) => {
    const field = findField(tree, id, key);
    const pair = typeof field === "string" ? undefined : pairOf(field.map, field.key);
    const lines = pair && blockLines(text, pair);
    if (!pair || !lines) return undefined;
    const comment = keyComment(text, pair);
    const shown = linesText(text, lines);
    return comment ? `${text.slice(comment.from, comment.to)}\n${shown}` : shown;
  });
}
