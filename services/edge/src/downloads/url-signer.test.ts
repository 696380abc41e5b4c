import { describe, expect, it } from "vitest";
import { CLOCK_SKEW_S, UrlSigner } from "./url-signer";

const LIFETIME_S = 900;
const signer = new UrlSigner(Buffer.from("a signing key for this test"), LIFETIME_S);

/** The query of a URL the signer issued at `issuedAt`. */
function issued(issuedAt: number): { expires: number; sig: string } {
  const q = new URL(signer.downloadUrl("art1", issuedAt), "http://x").searchParams;
  return { expires: Number(q.get("expires")), sig: q.get("sig")! };
}

describe("UrlSigner.check", () => {
  const issuedAt = 1_800_000_000_000;
  const { expires, sig } = issued(issuedAt);

  it("accepts a URL it issued until its expiry, and from a clock up to the skew behind the issuer's", () => {
    expect(expires).toBe(issuedAt / 1000 + LIFETIME_S);
    expect(signer.check("art1", expires, sig, issuedAt)).toBe("ok");
    expect(signer.check("art1", expires, sig, expires * 1000 - 1)).toBe("ok");
    expect(signer.check("art1", expires, sig, expires * 1000)).toBe("url_expired");
    expect(signer.check("art1", expires, sig, issuedAt - CLOCK_SKEW_S * 1000)).toBe("ok");
  });

  it("refuses a genuine signature over an expiry further off than the lifetime and the skew", () => {
    expect(signer.check("art1", expires, sig, issuedAt - CLOCK_SKEW_S * 1000 - 1)).toBe("url_lifetime_exceeded");
    // Signed with the real key for the year 2100, as a leaked key would allow.
    const forged = issued(Date.UTC(2100, 0, 1) - LIFETIME_S * 1000);
    expect(signer.check("art1", forged.expires, forged.sig, issuedAt)).toBe("url_lifetime_exceeded");
  });

  it("says bad_signature first, whatever the expiry", () => {
    const other = new UrlSigner(Buffer.from("another key"), LIFETIME_S);
    const q = new URL(other.downloadUrl("art1", Date.UTC(2100, 0, 1)), "http://x").searchParams;
    expect(signer.check("art1", Number(q.get("expires")), q.get("sig")!, issuedAt)).toBe("bad_signature");
    expect(signer.check("art2", expires, sig, issuedAt)).toBe("bad_signature");
    expect(signer.check("art1", expires + 1, sig, issuedAt)).toBe("bad_signature");
  });
});
