import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { Lru } from "../pools/lru";

const VERSION = "v1";
/** Opened secrets remembered (by context and sealed text), so a hot path costs no decryption. */
const REMEMBERED = 10_000;

/**
 * Secrets the service must be able to read back (an HMAC secret, an owner's API token) are
 * stored encrypted with AES-256-GCM: `v1.<iv>.<tag>.<ciphertext>` (base64url). The caller's
 * `context` (a webhook id, `<owner>/<name>`) is the associated data, so a ciphertext copied onto
 * another record does not decrypt.
 */
export class SecretBox {
  readonly #opened = new Lru<string, Buffer>(REMEMBERED);

  /** `key`: 32 bytes (serverKey). */
  constructor(private readonly key: Buffer) {}

  seal(secret: string, context: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.key, iv).setAAD(Buffer.from(context, "utf8"));
    const sealed = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()]);
    return [VERSION, iv, cipher.getAuthTag(), sealed]
      .map((p) => (typeof p === "string" ? p : p.toString("base64url")))
      .join(".");
  }

  /** Throws when the text was not sealed by this key for this context. */
  open(sealedText: string, context: string): Buffer {
    const memo = `${context} ${sealedText}`;
    const known = this.#opened.get(memo);
    if (known) return known;
    const secret = this.#decrypt(sealedText, context);
    this.#opened.set(memo, secret);
    return secret;
  }

  #decrypt(sealedText: string, context: string): Buffer {
    const [version, iv, tag, sealed] = sealedText.split(".");
    if (version !== VERSION || iv === undefined || tag === undefined || sealed === undefined)
      throw new Error("not a sealed secret");
    const decipher = createDecipheriv("aes-256-gcm", this.key, Buffer.from(iv, "base64url"))
      .setAAD(Buffer.from(context, "utf8"))
      .setAuthTag(Buffer.from(tag, "base64url"));
    return Buffer.concat([decipher.update(Buffer.from(sealed, "base64url")), decipher.final()]);
  }
}
