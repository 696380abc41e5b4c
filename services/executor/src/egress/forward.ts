import { request as httpRequest, type IncomingMessage, type ServerResponse } from "node:http";
import { request as httpsRequest } from "node:https";
import { lookupOf, malformed } from "./check";
import { connectDeadline, decide, timeoutError, upstreamFailure, type RequestContext } from "./context";
import { parseDestination } from "./destination";
import { endToEndHeaders } from "./hop-by-hop";

const DEFAULT_PORT: Record<string, number> = { "http:": 80, "https:": 443 };

/**
 * An absolute-form request (`GET http://host/path`), sent on to its destination over a
 * connection of its own (`https:` ones over TLS, checked against the name), and its answer
 * streamed back; the client's connection stays open for its next request. Hop-by-hop headers and
 * `Proxy-Authorization` go no further, and `Host` is the URL's (RFC 9112 §3.2.2).
 */
export async function forward(ctx: RequestContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const deadline = performance.now() + ctx.limits.connectTimeoutMs;
  let url: URL;
  try {
    url = new URL(req.url ?? "");
  } catch {
    return answer(
      res,
      400,
      "egress: this is a proxy: send absolute-form requests (GET http://host/path) or CONNECT host:port",
    );
  }
  const port = DEFAULT_PORT[url.protocol];
  if (port === undefined)
    return answer(res, 400, `egress: ${url.protocol} URLs are not forwarded: tunnel them with CONNECT`);
  const parsed = parseDestination(url.hostname, url.port ? Number(url.port) : port);
  const outcome = await decide(
    ctx,
    typeof parsed === "string" ? malformed(url.hostname, Number(url.port) || port, parsed) : parsed,
    deadline,
  );
  if (res.destroyed) return;
  if (outcome.kind === "answer") return answer(res, outcome.status, outcome.text);
  const { dest, addresses } = outcome.verdict;
  const send = url.protocol === "https:" ? httpsRequest : httpRequest;
  const upstream = send({
    host: dest.host,
    port: dest.port,
    method: req.method,
    path: `${url.pathname}${url.search}`,
    headers: [...endToEndHeaders(req.rawHeaders, ["host"]), "Host", url.host],
    setHost: false,
    agent: false,
    lookup: lookupOf(addresses),
    timeout: ctx.limits.idleTimeoutMs,
  });
  const timedOut = () => upstream.destroy(timeoutError());
  upstream.once("socket", (socket) => connectDeadline(socket, deadline, timedOut));
  upstream.once("timeout", timedOut);
  upstream.on("error", (err) => {
    if (res.headersSent) return void res.destroy();
    const failure = upstreamFailure(dest, err);
    answer(res, failure.status, failure.text);
  });
  upstream.once("response", (answerIn) => {
    res.writeHead(answerIn.statusCode ?? 502, answerIn.statusMessage, endToEndHeaders(answerIn.rawHeaders));
    answerIn.on("error", () => res.destroy());
    answerIn.pipe(res);
  });
  res.once("close", () => {
    if (!res.writableFinished) upstream.destroy();
  });
  req.pipe(upstream);
}

function answer(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { "content-type": "text/plain; charset=utf-8" }).end(`${text}\n`);
}
