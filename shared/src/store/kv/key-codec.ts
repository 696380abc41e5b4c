const PLAIN = /^[A-Za-z0-9_-]+$/;
const ESCAPED = /=([0-9A-F]{2})/g;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Turns any string into one KV key token (a subject token). Ids are already tokens and pass
 * through unchanged; anything else (an owner id with '@' or '.', a workflow name with spaces)
 * has each UTF-8 byte outside [A-Za-z0-9_-] written as `=XX`. Since '=' is always escaped the
 * mapping is injective, and the empty string, which no escape produces, becomes a lone "=".
 */
export function keyToken(s: string): string {
  if (PLAIN.test(s)) return s;
  if (s === "") return "=";
  let out = "";
  for (const ch of s) {
    if (PLAIN.test(ch)) out += ch;
    else for (const b of encoder.encode(ch)) out += `=${b.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

export function fromKeyToken(token: string): string {
  if (!token.includes("=")) return token;
  if (token === "=") return "";
  // Runs of escapes are decoded together: a multi-byte character spans several of them.
  return token.replace(/(?:=[0-9A-F]{2})+/g, (run) =>
    decoder.decode(Uint8Array.from(run.matchAll(ESCAPED), (m) => parseInt(m[1]!, 16))),
  );
}

const scratch = new DataView(new ArrayBuffer(8));

/**
 * A fixed-width token that sorts as strings the way the numbers sort (negatives and fractions
 * included): the IEEE-754 bits with the sign flipped, and all bits flipped for negatives.
 */
export function sortableNumber(n: number): string {
  scratch.setFloat64(0, n);
  let hi = scratch.getUint32(0);
  let lo = scratch.getUint32(4);
  if (hi & 0x8000_0000) {
    hi = ~hi >>> 0;
    lo = ~lo >>> 0;
  } else {
    hi = (hi | 0x8000_0000) >>> 0;
  }
  return hi.toString(16).padStart(8, "0") + lo.toString(16).padStart(8, "0");
}
