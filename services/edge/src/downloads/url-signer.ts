import { createHmac, timingSafeEqual } from "node:crypto";

export type SignatureCheck = "ok" | "bad_signature" | "url_expired" | "url_lifetime_exceeded";

/** How far the edges' clocks may disagree: a URL signed by one is checked by another. */
export const CLOCK_SKEW_S = 60;

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

  /**
   * The signature first (constant-time), so that the other reasons are said only of a genuine
   * URL. An `expires` beyond now + the lifetime (and the clocks' skew) was never issued: a URL
   * forged with a leaked key, or issued before the lifetime was shortened, is refused too.
   */
  check(artifactId: string, expires: number, sig: string, now: number): SignatureCheck {
    const expected = Buffer.from(this.#sign(artifactId, expires), "hex");
    const given = /^[0-9a-f]{64}$/.test(sig) ? Buffer.from(sig, "hex") : Buffer.alloc(0);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return "bad_signature";
    if (expires * 1000 <= now) return "url_expired";
    return expires * 1000 > now + (this.lifetimeS + CLOCK_SKEW_S) * 1000 ? "url_lifetime_exceeded" : "ok";
  }

  #sign(artifactId: string, expires: number): string {
    return createHmac("sha256", this.secret).update(`${artifactId}.${expires}`).digest("hex");
  }
}
