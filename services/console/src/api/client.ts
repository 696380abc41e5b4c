/**
 * The console's one way to the API: same-origin fetch with the session cookie, the CSRF token
 * (read from the `wf_csrf` cookie that login sets) on every state-changing request, JSON in and
 * out, and every error answer turned into an ApiError carrying the service's code and message.
 */
export interface FieldProblem {
  in?: string;
  field: string;
  message: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly body: Record<string, unknown> = {},
  ) {
    super(message);
  }

  /** The field problems of a 400, when the service named them. */
  get details(): FieldProblem[] {
    return Array.isArray(this.body.details) ? (this.body.details as FieldProblem[]) : [];
  }
}

export function csrfToken(): string {
  for (const part of document.cookie.split(";")) {
    const [name, ...value] = part.trim().split("=");
    if (name === "wf_csrf") return value.join("=");
  }
  return "";
}

type Method = "GET" | "POST" | "PUT" | "DELETE";

/** Called on a 401 anywhere: the session is gone, so the app goes to the login page. */
let onUnauthorized: () => void = () => {};
export function setUnauthorizedHandler(handler: () => void): void {
  onUnauthorized = handler;
}

export async function api<T>(method: Method, path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
  return (await exchange<T>(method, path, { body, signal })).body;
}

/** A GET sending `headers` too, answered with the response's headers beside its body. */
export function apiGet<T>(
  path: string,
  headers: Record<string, string>,
  signal?: AbortSignal,
): Promise<{ body: T; headers: Headers }> {
  return exchange<T>("GET", path, { headers, signal });
}

async function exchange<T>(
  method: Method,
  path: string,
  { body, signal, headers: extra }: { body?: unknown; signal?: AbortSignal; headers?: Record<string, string> },
): Promise<{ body: T; headers: Headers }> {
  const headers: Record<string, string> = { ...extra, accept: "application/json" };
  if (body !== undefined) headers["content-type"] = "application/json";
  if (method !== "GET") headers["x-csrf-token"] = csrfToken();
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: "same-origin",
      signal,
    });
  } catch (err) {
    if (signal?.aborted) throw err;
    throw new ApiError(
      0,
      "NETWORK",
      "The service did not answer: check that it is running and your connection, then retry.",
    );
  }
  if (response.status === 204) return { body: undefined as T, headers: response.headers };
  const text = await response.text();
  let parsed: unknown = undefined;
  try {
    parsed = text === "" ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (!response.ok) {
    const errorBody = (parsed ?? {}) as Record<string, unknown>;
    const code = typeof errorBody.code === "string" ? errorBody.code : `HTTP_${response.status}`;
    const message =
      typeof errorBody.error === "string"
        ? errorBody.error
        : `The service answered ${response.status} ${response.statusText}.`;
    if (response.status === 401 && !path.endsWith("/login")) onUnauthorized();
    throw new ApiError(response.status, code, message, errorBody);
  }
  return { body: parsed as T, headers: response.headers };
}

/** A query string of the defined values only. */
export function query(params: Record<string, string | number | boolean | undefined | null>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params))
    if (value !== undefined && value !== null && value !== "") search.set(key, String(value));
  const text = search.toString();
  return text === "" ? "" : `?${text}`;
}
