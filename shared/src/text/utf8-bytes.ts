/**
 * The UTF-8 bytes of `text` when they are over `max`; undefined when they are not. A UTF-16 unit takes at most three
 * bytes, so a text whose length leaves no doubt is not counted: a check on a hot path costs a compare.
 */
export function utf8BytesOver(text: string, max: number): number | undefined {
  if (3 * text.length <= max) return undefined;
  const bytes = Buffer.byteLength(text);
  return bytes > max ? bytes : undefined;
}
