import { forgetJsonText } from "../text/json-texts";

/** What a secret's value is replaced with wherever it would be stored or published. */
export const MASK = "***";
/** Shorter values would mask ordinary text everywhere; `secret set` refuses them. */
export const MIN_SECRET_CHARS = 4;

/**
 * Replaces the values of secrets with `***` in text and in JSON-like values. The longest value
 * is masked first, so a secret that contains another one is masked whole.
 */
export class SecretMasker {
  private values: string[] = [];

  get active(): boolean {
    return this.values.length > 0;
  }

  /** How many secrets' values it masks: it masks more once this grows. */
  get count(): number {
    return this.values.length;
  }

  add(values: Iterable<string>): void {
    const next = new Set(this.values);
    for (const v of values) if (v.length >= MIN_SECRET_CHARS) next.add(v);
    this.values = [...next].sort((a, b) => b.length - a.length);
  }

  /** Whether `value` holds a secret's value (in a string or a key), which `inPlace` would mask. */
  holds(value: unknown): boolean {
    return this.active && this.#holdsSecret(value);
  }

  text(s: string): string {
    let out = s;
    for (const v of this.values) if (out.includes(v)) out = out.replaceAll(v, MASK);
    return out;
  }

  /**
   * Masks every string in `value`, keys included. Objects and arrays are changed in place (a
   * snapshot must hold what its stored copy holds); the result is the value to use.
   */
  inPlace<T>(value: T): T {
    if (!this.active) return value;
    this.#changed = false;
    return this.#walk(value) as T;
  }

  /** Whether the walk changed anything since the object or array it is in began. */
  #changed = false;

  #walk(value: unknown): unknown {
    if (typeof value === "string") {
      const masked = this.text(value);
      if (masked !== value) this.#changed = true;
      return masked;
    }
    if (value === null || typeof value !== "object") return value;
    // Shared, and so never changed (an execution's definition, a parsed workflow's parts): a copy is masked instead.
    if (Object.isFrozen(value)) {
      if (!this.#holdsSecret(value)) return value;
      this.#changed = true;
      return this.#walk(structuredClone(value));
    }
    const outer = this.#changed;
    this.#changed = false;
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) value[i] = this.#walk(value[i]);
    } else {
      const obj = value as Record<string, unknown>;
      for (const key of Object.keys(obj)) {
        const masked = this.#walk(obj[key]);
        const maskedKey = this.text(key);
        if (maskedKey !== key) {
          delete obj[key];
          this.#changed = true;
        }
        obj[maskedKey] = masked;
      }
    }
    // A JSON text kept for it (json-texts.ts) no longer is its text, nor that of what holds it.
    if (this.#changed) forgetJsonText(value);
    this.#changed ||= outer;
    return value;
  }

  #holdsSecret(value: unknown): boolean {
    if (typeof value === "string") return this.text(value) !== value;
    if (value === null || typeof value !== "object") return false;
    if (Array.isArray(value)) return value.some((v) => this.#holdsSecret(v));
    return Object.entries(value).some(([k, v]) => this.text(k) !== k || this.#holdsSecret(v));
  }

  /**
   * For text that arrives in pieces (streamed tokens): how many trailing characters of `s` could
   * be the start of a secret whose rest is still to come, and must be held back.
   */
  pendingTail(s: string): number {
    let hold = 0;
    for (const v of this.values) {
      for (let k = Math.min(v.length - 1, s.length); k > hold; k--) {
        if (s.endsWith(v.slice(0, k))) {
          hold = k;
          break;
        }
      }
    }
    return hold;
  }
}

/** Masks a stream of text pieces: a secret split across pieces is still masked whole. */
export class StreamMasker {
  private buffer = "";

  constructor(private readonly masker: SecretMasker) {}

  /** The masked text that can be shown now. */
  push(piece: string): string {
    const masked = this.masker.text(this.buffer + piece);
    const hold = this.masker.pendingTail(masked);
    this.buffer = masked.slice(masked.length - hold);
    return masked.slice(0, masked.length - hold);
  }

  /** The rest, at the end of the stream. */
  end(): string {
    const rest = this.masker.text(this.buffer);
    this.buffer = "";
    return rest;
  }
}
