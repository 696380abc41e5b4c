/**
 * JSON texts known for values, by the values' identity: a value parsed from a text a JSON.stringify wrote (a code
 * step's output, as its runner sent it) serialises to that text again, byte for byte, for as long as nothing changes
 * it. Where such a value is measured, passed on as a step's input, put into a template's text or written in a record or
 * an event, its text is used rather than written again (a JSON.stringify of 180 KiB of records takes about a
 * millisecond). The only thing that changes such values in place
 * is the secret masker, which forgets the text of every object or array it changes (SecretMasker.inPlace); an edit
 * replaces a value. A text lives as long as its value.
 */
const texts = new WeakMap<object, string>();

/** Keeps `text` as the JSON of `value`, an object or an array (a string's text says nothing dearer to find). */
export function keepJsonText(value: unknown, text: string): void {
  if (typeof value === "object" && value !== null) texts.set(value, text);
}

/** The JSON text kept for `value`, if any. */
export function jsonTextOf(value: unknown): string | undefined {
  return typeof value === "object" && value !== null ? texts.get(value) : undefined;
}

/** Forgets the text kept for `value`: it changed. */
export function forgetJsonText(value: object): void {
  texts.delete(value);
}

/** `json`, an object's JSON, with the field `name` added last, its value's JSON `fieldJson`. */
export function withJsonField(json: string, name: string, fieldJson: string): string {
  const field = `${JSON.stringify(name)}:${fieldJson}`;
  return json === "{}" ? `{${field}}` : `${json.slice(0, -1)},${field}}`;
}

/** `value`'s JSON, its field `name` written last from the text kept for that field's value, where one is kept. */
export function jsonKeeping(value: Record<string, unknown>, name: string): string {
  const text = jsonTextOf(value[name]);
  if (text === undefined) return JSON.stringify(value);
  return withJsonField(JSON.stringify({ ...value, [name]: undefined }), name, text);
}
