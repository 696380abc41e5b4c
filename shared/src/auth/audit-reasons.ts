import { z } from "zod";

/**
 * Why a request was refused with 401. The client never learns which; the audit log does. The
 * first nine are decisions.md's; `bad_signature` and `url_expired` are the signed download URL's.
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
] as const;
export const AuditReason = z.enum(AUDIT_REASONS);
export type AuditReason = z.infer<typeof AuditReason>;
