import type { FastifyRequest } from "fastify";

export type CredentialForm = "authorization" | "x-api-key" | "query";

export type Credential = { form: CredentialForm; value: string } | null;

/**
 * The API key of a request, from the first non-empty of the three forms in priority order
 * (docs/api.md, Authentication): `Authorization: Bearer`, then `X-API-Key`, then `?api_key=`.
 * A present but empty form (an empty header, `Bearer ` with nothing after it) falls through; a
 * non-empty form is the credential even if it is wrong (a lower form never overrides it). An
 * `Authorization` header with another scheme is non-empty: it is taken, and fails as malformed.
 */
export function extractCredential(request: FastifyRequest): Credential {
  const authorization = single(request.headers.authorization);
  if (authorization !== "") {
    const bearer = /^bearer(?:\s+(.*))?$/is.exec(authorization);
    const token = bearer ? (bearer[1] ?? "").trim() : authorization;
    if (token !== "") return { form: "authorization", value: token };
  }
  const header = single(request.headers["x-api-key"]);
  if (header !== "") return { form: "x-api-key", value: header };
  const query = (request.query as Record<string, unknown> | undefined)?.api_key;
  const fromQuery = Array.isArray(query) ? query.join(",") : typeof query === "string" ? query.trim() : "";
  if (fromQuery !== "") return { form: "query", value: fromQuery };
  return null;
}

/** A header sent twice arrives as an array (or comma-joined): it can only be malformed. */
function single(value: string | string[] | undefined): string {
  if (value === undefined) return "";
  return (Array.isArray(value) ? value.join(",") : value).trim();
}
