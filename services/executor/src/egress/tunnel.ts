import type { IncomingMessage } from "node:http";
import { connect, type Socket } from "node:net";
import { lookupOf, malformed } from "./check";
import { connectDeadline, decide, timeoutError, upstreamFailure, type RequestContext } from "./context";
import { parseAuthority } from "./destination";
import { rawAnswer } from "./raw-answer";

/**
 * `CONNECT host:port`: once the destination is allowed and connected, `200` and then bytes both
 * ways, whatever they carry (TLS mostly). The connection is the tunnel's from then on: it ends
 * when either side ends it, on an error, when idle too long, or when the session closes.
 */
export async function tunnel(ctx: RequestContext, req: IncomingMessage, client: Socket, head: Buffer): Promise<void> {
  const deadline = performance.now() + ctx.limits.connectTimeoutMs;
  client.on("error", () => client.destroy());
  client.setTimeout(ctx.limits.idleTimeoutMs, () => client.destroy());
  const authority = req.url ?? "";
  const parsed = parseAuthority(authority);
  const outcome = await decide(ctx, typeof parsed === "string" ? malformed(authority, 0, parsed) : parsed, deadline);
  if (client.destroyed) return;
  if (outcome.kind === "answer") return rawAnswer(client, outcome.status, outcome.text);
  const { dest, addresses } = outcome.verdict;
  const upstream = connect({
    host: dest.host,
    port: dest.port,
    lookup: lookupOf(addresses),
    autoSelectFamily: true,
    noDelay: true,
  });
  let connected = false;
  connectDeadline(upstream, deadline, () => upstream.destroy(timeoutError()));
  upstream.on("error", (err) => {
    if (connected) return void client.destroy();
    const failure = upstreamFailure(dest, err);
    rawAnswer(client, failure.status, failure.text);
  });
  client.once("close", () => upstream.destroy());
  upstream.once("connect", () => {
    connected = true;
    client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
    if (head.length) upstream.write(head);
    client.pipe(upstream);
    upstream.pipe(client);
  });
}
