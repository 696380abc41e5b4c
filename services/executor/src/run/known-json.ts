import type { SecretMasker } from "@wf/shared/secrets";

/**
 * The JSON texts of a run's step outputs as their runners wrote them (CodeResult.outputJson), kept by the values parsed
 * from them: such an output is measured, and passed on as a later step's input, without being serialised again (a
 * JSON.stringify of 180 KiB of records takes about a millisecond). A JSON.stringify wrote each text, and the value
 * parsed from such a text serialises to it again, byte for byte. A text stands for its value only while the run
 * knows no secret: once the masker knows one it rewrites the strings of the values it is given in place, and a text
 * kept from before would still hold what the record must not. Nothing else changes an output in place (an edit
 * replaces it), and a value is kept only where it is an object or an array: a text's length tells nothing dearer.
 */
export class KnownJson {
  readonly #texts = new WeakMap<object, string>();

  constructor(private readonly masker: SecretMasker) {}

  /** Keeps `json` as the text of `value`, where it can stand for it. */
  keep(value: unknown, json: string): void {
    if (!this.masker.active && typeof value === "object" && value !== null) this.#texts.set(value, json);
  }

  /** The text kept for `value`, while it still stands for it. */
  textOf(value: unknown): string | undefined {
    if (this.masker.active || typeof value !== "object" || value === null) return undefined;
    return this.#texts.get(value);
  }
}
