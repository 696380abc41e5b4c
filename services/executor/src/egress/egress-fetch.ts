import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { Readable } from "node:stream";
import { checkDestination, lookupOf, malformed, type DnsLookup } from "./check";
import { parseDestination } from "./destination";
import type { EgressPolicy, EgressRefusal } from "./policy";

/** The destination is refused by the egress policy; nothing was sent to it. */
export class EgressRefusedError extends Error {
  constructor(readonly refusal: EgressRefusal) {
    super(refusal.reason);
    this.name = "EgressRefusedError";
  }
}

export type EgressFetchFn = (input: string | URL, init?: RequestInit) => Promise<Response>;

const DEFAULT_PORT: Record<string, number> = { "http:": 80, "https:": 443 };
/** Statuses whose answers have no body (the Response constructor refuses one). */
const NO_BODY = new Set([101, 204, 205, 304]);

/**
 * A `fetch` for outbound calls the operator's egress policy governs (MCP servers given by URL): each
 * host is resolved once, every address checked, and only a checked address connected to; a refused
 * destination throws EgressRefusedError before anything is sent. Redirects are never followed: a
 * caller that follows one (the MCP SDK does, within the origin) comes through here again.
 * Connections are kept alive until `close`.
 */
export function egressFetch(opts: { policy: EgressPolicy; lookup?: DnsLookup; maxResponseBytes?: number }): {
  fetch: EgressFetchFn;
  close(): void;
} {
  const agents = { "http:": new HttpAgent({ keepAlive: true }), "https:": new HttpsAgent({ keepAlive: true }) };
  const fetchChecked: EgressFetchFn = async (input, init = {}) => {
    const url = new URL(input);
    const defaultPort = DEFAULT_PORT[url.protocol];
    if (defaultPort === undefined) throw new TypeError(`${url.protocol} URLs cannot be fetched`);
    const port = url.port ? Number(url.port) : defaultPort;
    const dest = parseDestination(url.hostname, port);
    if (typeof dest === "string") throw new EgressRefusedError(malformed(url.hostname, port, dest));
    const verdict = await checkDestination(dest, {
      policy: opts.policy,
      ...(opts.lookup ? { lookup: opts.lookup } : {}),
    });
    if (verdict.kind === "refused") throw new EgressRefusedError(verdict.refusal);
    if (verdict.kind === "unresolved") throw new Error(`cannot resolve ${dest.host}: ${verdict.error}`);
    const method = (init.method ?? "GET").toUpperCase();
    const body = requestBody(init.body);
    const send = url.protocol === "https:" ? httpsRequest : httpRequest;
    return new Promise<Response>((resolve, reject) => {
      const req = send(url, {
        method,
        headers: Object.fromEntries(new Headers(init.headers)),
        agent: agents[url.protocol as keyof typeof agents],
        lookup: lookupOf(verdict.addresses),
        ...(init.signal ? { signal: init.signal } : {}),
      });
      req.once("error", reject);
      req.once("response", (res) => {
        try {
          resolve(toResponse(bounded(res, opts.maxResponseBytes), method));
        } catch (err) {
          res.destroy();
          reject(err);
        }
      });
      req.end(body);
    });
  };
  return {
    fetch: fetchChecked,
    close() {
      agents["http:"].destroy();
      agents["https:"].destroy();
    },
  };
}

function requestBody(body: RequestInit["body"]): string | Uint8Array | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === "string" || body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  throw new TypeError("only string and byte bodies are sent");
}

const TOO_LARGE = "the answer is larger than";

/** An answer past what the caller takes (`maxResponseBytes`, a stdio MCP message's bound): its stream fails with this. */
export class ResponseTooLargeError extends Error {
  constructor(maxBytes: number) {
    super(`${TOO_LARGE} ${maxBytes} bytes, the most taken of one answer from such a server`);
    this.name = "ResponseTooLargeError";
  }
}

/** Why `err` (or what it says it came of: the MCP SDK reports a stream's failure as text) ended an answer too large. */
export function tooLargeAnswer(err: unknown): string | null {
  const text = err instanceof Error ? err.message : String(err);
  const at = text.indexOf(TOO_LARGE);
  return at < 0 ? null : text.slice(at);
}

/**
 * The answer, its body failing once past `maxBytes` (at once when its Content-Length says so): a server the caller
 * does not run cannot make it read and parse any size, on a thread it shares.
 */
function bounded(res: IncomingMessage, maxBytes: number | undefined): IncomingMessage {
  if (maxBytes === undefined) return res;
  const tooLarge = () => res.destroy(new ResponseTooLargeError(maxBytes));
  if (Number(res.headers["content-length"] ?? 0) > maxBytes) {
    tooLarge();
    return res;
  }
  let seen = 0;
  res.on("data", (chunk: Buffer) => {
    seen += chunk.length;
    if (seen > maxBytes) tooLarge();
  });
  return res;
}

function toResponse(res: IncomingMessage, method: string): Response {
  const headers = new Headers();
  for (let i = 0; i < res.rawHeaders.length; i += 2) headers.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
  const status = res.statusCode ?? 0;
  const bodyless = NO_BODY.has(status) || method === "HEAD";
  if (bodyless) res.resume();
  return new Response(bodyless ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>), {
    status,
    statusText: res.statusMessage ?? "",
    headers,
  });
}
