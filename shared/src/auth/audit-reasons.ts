import { z } from "zod";

/**
 * Why a request was refused; the client never learns which, the audit log does. The first nine are
 * API keys' and webhooks' 401s, the next three the signed download URL's: `url_lifetime_exceeded` is a
 * genuine signature over an expiry further off than any URL is issued for, so the signing key may
 * have leaked (or the lifetime was shortened). `login_throttled` is a console login refused with 429
 * unchecked (console/login-throttle.ts), `webhook_throttled` an HMAC webhook trigger refused with 429 before its
 * body was read, its address having sent too many wrong signatures (webhooks/signature-failures.ts).
 */
export const AUDIT_REASONS = [
  "missing",
  "malformed",
  "unknown_key",
  "bad_secret",
  "revoked",
  "expired",
  "insufficient_scope",
  "webhook_key_mismatch",
  "hmac_mismatch",
  "bad_signature",
  "url_expired",
  "url_lifetime_exceeded",
  "login_throttled",
  "webhook_throttled",
] as const;
export const AuditReason = z.enum(AUDIT_REASONS);
export type AuditReason = z.infer<typeof AuditReason>;
