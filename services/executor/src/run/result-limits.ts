/**
 * Cutting what steps produce to the shares of max_payload an execution's record keeps for it (ResultLimits, in
 * @wf/shared/execution).
 */
/** Bytes of `value` as JSON; Infinity when it cannot be serialised (nested too deep for the stack). */
export function jsonBytes(value: unknown): number {
  try {
    const text = JSON.stringify(value);
    return text === undefined ? 0 : Buffer.byteLength(text);
  } catch (err) {
    if (err instanceof RangeError) return Number.POSITIVE_INFINITY;
    throw err;
  }
}

/**
 * `value` if its JSON fits in `maxBytes`. Else a string keeps its beginning, with a note of the
 * cut at its end (so the step keeps what it printed first, and says so); any other value is
 * replaced by a marker object saying what it was, since half a JSON document is no document.
 */
export function cutValue(value: unknown, maxBytes: number, what: string): unknown {
  return cutMeasured(value, maxBytes, what).value;
}

/**
 * cutValue, with the bytes of the kept value's JSON: a caller that needs them again need not serialise it again.
 * `known`: the bytes of `value`'s JSON, where the caller has them.
 */
export function cutMeasured(
  value: unknown,
  maxBytes: number,
  what: string,
  known?: number,
): { value: unknown; bytes: number } {
  const bytes = known ?? jsonBytes(value);
  if (bytes <= maxBytes) return { value, bytes };
  const advice = "write large results to WF_ARTIFACTS_DIR as artifacts";
  const kept =
    typeof value === "string"
      ? cutString(value, bytes, maxBytes, `\n[${what} cut to ${maxBytes} bytes of JSON from ${bytes}; ${advice}]`)
      : Number.isFinite(bytes)
        ? {
            truncated: true,
            bytes,
            note: `${what} not kept: ${bytes} bytes of JSON, over the ${maxBytes} bytes it may have; ${advice}`,
          }
        : { truncated: true, note: `${what} not kept: it is nested too deeply to store` };
  return { value: kept, bytes: jsonBytes(kept) };
}

/** `text` cut to at most `maxBytes` of JSON, saying where it was cut. */
export function cutText(text: string, maxBytes: number, what: string): string {
  const bytes = jsonBytes(text);
  return bytes <= maxBytes
    ? text
    : cutString(text, bytes, maxBytes, ` [${what} cut to ${maxBytes} bytes of JSON from ${bytes}]`);
}

/**
 * The newest lines that fit in `maxBytes` of JSON, after a first line saying how many earlier
 * ones were left out: the end of a log is where a failure shows.
 */
export function cutLogs(lines: readonly string[], maxBytes: number): string[] {
  const total = jsonBytes(lines);
  if (total <= maxBytes) return [...lines];
  const kept: string[] = [];
  // The note's own size, with room for its numbers.
  let room = maxBytes - 128;
  for (let i = lines.length - 1; i >= 0; i--) {
    const size = jsonBytes(lines[i]) + 1;
    if (size > room) break;
    room -= size;
    kept.push(lines[i]!);
  }
  const dropped = lines.length - kept.length;
  return [`[${dropped} earlier log lines not kept: a step keeps at most ${maxBytes} bytes of log]`, ...kept.reverse()];
}

/** A prefix of `text` that, with `note` after it, is at most `maxBytes` of JSON; never splits a character. */
function cutString(text: string, jsonSize: number, maxBytes: number, note: string): string {
  const room = maxBytes - jsonBytes(note) - 2;
  if (room <= 0) return note.trim();
  // JSON escapes make a text longer than its UTF-8 bytes: start from the share that fits.
  const utf8 = Buffer.from(text);
  let end = Math.min(utf8.length, Math.floor((room * utf8.length) / Math.max(1, jsonSize)));
  for (;;) {
    while (end > 0 && (utf8[end]! & 0xc0) === 0x80) end--;
    const head = utf8.subarray(0, end).toString("utf8");
    if (jsonBytes(head) <= room || end === 0) return head + note;
    end = Math.floor(end * 0.9);
  }
}
