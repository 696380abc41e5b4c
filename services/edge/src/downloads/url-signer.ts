import { createHmac, timingSafeEqual } from "node:crypto";

export type SignatureCheck = "ok" | "bad_signature" | "url_expired";

/**
 * Signed artifact download URLs: `/api/artifacts/<id>/download?expires=<epoch s>&sig=<hex
 * HMAC-SHA256 of "<id>.<expires>">`. Whoever holds the URL may fetch the file until it expires;
 * no API key travels with it.
 */
export class UrlSigner {
  constructor(
    private readonly secret: Buffer,
    private readonly lifetimeS: number,
  ) {}

  downloadUrl(artifactId: string, now: number): string {
    const expires = Math.floor(now / 1000) + this.lifetimeS;
    return `/api/artifacts/${encodeURIComponent(artifactId)}/download?expires=${expires}&sig=${this.#sign(artifactId, expires)}`;
  }

  /** The signature first (constant-time), so that `url_expired` is said only of a genuine URL. */
  check(artifactId: string, expires: number, sig: string, now: number): SignatureCheck {
    const expected = Buffer.from(this.#sign(artifactId, expires), "hex");
    const given = /^[0-9a-f]{64}$/.test(sig) ? Buffer.from(sig, "hex") : Buffer.alloc(0);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return "bad_signature";
    return expires * 1000 <= now ? "url_expired" : "ok";
  }

  #sign(artifactId: string, expires: number): string {
    return createHmac("sha256", this.secret).update(`${artifactId}.${expires}`).digest("hex");
  }
}
