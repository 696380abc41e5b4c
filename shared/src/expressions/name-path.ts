/**
 * Reads a bare path of names on the main thread, when that is bound to be cheap: one own-property
 * lookup per name, on plain objects only. JSONata gives the same value there (a name step on an
 * object is an own-property lookup; on anything but an object it yields nothing). On an array,
 * which JSONata maps over (work that grows with the data), it gives up: null, for the pool.
 */
export function readNamePath(root: unknown, names: readonly string[]): { value: unknown } | null {
  let value = root;
  for (const name of names) {
    if (Array.isArray(value) || looksLikeFunction(value)) return null;
    if (value === null || typeof value !== "object" || !Object.hasOwn(value, name)) return { value: undefined };
    value = (value as Record<string, unknown>)[name];
  }
  return looksLikeFunction(value) ? null : { value };
}

/** JSONata takes an object marked like its own functions for one, and reads no field of it. */
function looksLikeFunction(value: unknown): boolean {
  const v = value as { _jsonata_function?: unknown; _jsonata_lambda?: unknown } | null;
  return typeof v === "object" && v !== null && (v._jsonata_function === true || v._jsonata_lambda === true);
}
