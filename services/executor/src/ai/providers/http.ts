import { sleep } from "../../sleep";
import { ProviderError } from "./types";

export interface HttpPolicy {
  timeoutMs: number;
  maxRetries: number;
  retryBaseMs: number;
  maxRetryDelayMs: number;
}

export interface ProviderRequest {
  provider: string;
  url: string;
  headers: Record<string, string>;
  body: unknown;
  policy: HttpPolicy;
  signal: AbortSignal;
  /** Values to cut out of any error text (the API key): a provider may echo what it was sent. */
  scrub: readonly string[];
}

/**
 * POSTs a JSON request to a provider and hands the response to `consume`, all within the
 * provider's timeout. Rate limits (429) and server errors (5xx), and connections that fail, are
 * tried again up to `maxRetries` times with exponential backoff, or after the `Retry-After` the
 * provider asked for; any other answer, or retries used up, is a ProviderError naming the
 * provider and the status. Once `consume` has begun (a stream being read) nothing is retried.
 */
export async function callProvider<T>(req: ProviderRequest, consume: (res: Response) => Promise<T>): Promise<T> {
  const { provider, policy } = req;
  for (let attempt = 0; ; attempt++) {
    const timeout = AbortSignal.timeout(policy.timeoutMs);
    const signal = AbortSignal.any([req.signal, timeout]);
    let res: Response;
    try {
      res = await fetch(req.url, {
        method: "POST",
        headers: { "content-type": "application/json", ...req.headers },
        body: JSON.stringify(req.body),
        signal,
      });
    } catch (err) {
      if (req.signal.aborted) throw req.signal.reason;
      const failure = timeout.aborted
        ? new ProviderError(provider, null, `no answer within ${policy.timeoutMs / 1000} s`, true)
        : new ProviderError(provider, null, `request failed: ${causeText(err)}`, true);
      if (attempt >= policy.maxRetries) throw failure;
      await sleep(backoff(policy, attempt), req.signal);
      continue;
    }
    if (res.ok) {
      try {
        return await consume(res);
      } catch (err) {
        if (req.signal.aborted) throw req.signal.reason;
        if (timeout.aborted)
          throw new ProviderError(provider, null, `no complete answer within ${policy.timeoutMs / 1000} s`, true);
        throw err;
      }
    }
    const detail = scrub(await errorDetail(res), req.scrub);
    const transient = res.status === 408 || res.status === 429 || res.status >= 500;
    if (!transient) throw new ProviderError(provider, res.status, detail, false);
    if (attempt >= policy.maxRetries)
      throw new ProviderError(provider, res.status, `${detail} (after ${attempt + 1} attempts)`, true);
    const asked = retryAfterMs(res.headers);
    if (asked !== null && asked > policy.maxRetryDelayMs) {
      throw new ProviderError(
        provider,
        res.status,
        `${detail} (asked to retry after ${Math.ceil(asked / 1000)} s, over the ${policy.maxRetryDelayMs / 1000} s allowed)`,
        true,
      );
    }
    await sleep(asked ?? backoff(policy, attempt), req.signal);
  }
}

/** Exponential, with full jitter so that many steps hitting one limit do not return together. */
function backoff(policy: HttpPolicy, attempt: number): number {
  const ceiling = Math.min(policy.maxRetryDelayMs, policy.retryBaseMs * 2 ** attempt);
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

/** `retry-after-ms` (OpenAI), else `Retry-After` in seconds or as an HTTP date. */
export function retryAfterMs(headers: Headers, now = Date.now()): number | null {
  const ms = headers.get("retry-after-ms");
  if (ms !== null && /^\d+(\.\d+)?$/.test(ms.trim())) return Number(ms);
  const value = headers.get("retry-after");
  if (value === null) return null;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** The provider's own message when the body has one (both protocols nest it in `error.message`). */
async function errorDetail(res: Response): Promise<string> {
  const text = await res.text().catch(() => "");
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown };
    const message = typeof body.error === "string" ? body.error : (body.error?.message ?? body.message);
    if (typeof message === "string" && message) return `${res.statusText || "error"}: ${message.slice(0, 500)}`;
  } catch {
    // not JSON: the text itself
  }
  return `${res.statusText || "error"}${text ? `: ${text.slice(0, 500)}` : ""}`;
}

function scrub(text: string, values: readonly string[]): string {
  let out = text;
  for (const v of values) if (v) out = out.replaceAll(v, "***");
  return out;
}

function causeText(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (err instanceof Error ? err.message : String(err));
}
