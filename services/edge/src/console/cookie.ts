export const SESSION_COOKIE = "wf_session";
export const CSRF_COOKIE = "wf_csrf";

/** The value of one cookie of a `Cookie` header, or undefined. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/**
 * The session cookie: HttpOnly (no script reads it), SameSite=Lax (not sent on cross-site
 * POSTs), scoped to the API paths. `maxAgeSeconds` 0 clears it.
 */
export function sessionCookie(value: string, maxAgeSeconds: number, secure: boolean): string {
  return [
    `${SESSION_COOKIE}=${value}`,
    "Path=/api",
    `Max-Age=${maxAgeSeconds}`,
    "HttpOnly",
    "SameSite=Lax",
    ...(secure ? ["Secure"] : []),
  ].join("; ");
}

/**
 * The CSRF token as a cookie that the console's own pages read (cookie-to-header): it survives a
 * reload and is shared by the tabs of one session, while a page of another site can neither read
 * it nor make the browser send it as a header. SameSite=Strict, readable on every path, since the
 * app lives under /console and the API under /api. `maxAgeSeconds` 0 clears it.
 */
export function csrfCookie(value: string, maxAgeSeconds: number, secure: boolean): string {
  return [
    `${CSRF_COOKIE}=${value}`,
    "Path=/",
    `Max-Age=${maxAgeSeconds}`,
    "SameSite=Strict",
    ...(secure ? ["Secure"] : []),
  ].join("; ");
}
