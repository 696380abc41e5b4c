import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it, onTestFinished } from "vitest";
import { loadConfig } from "@wf/shared/config";
import { egressFetch, EgressRefusedError, tooLargeAnswer } from "./egress-fetch";
import { hostAddresses } from "./host-addresses";
import { EgressPolicy } from "./policy";
import { httpOrigin } from "./testing/origins";

function fetchUnder(allow: string): ReturnType<typeof egressFetch> {
  const policy = new EgressPolicy({
    allow: loadConfig({ WF_EGRESS_ALLOW: allow }).WF_EGRESS_ALLOW ?? [],
    hostAddresses: hostAddresses(),
  });
  const f = egressFetch({ policy });
  onTestFinished(() => f.close());
  return f;
}

describe("egressFetch", () => {
  it("fetches an allowed origin: status, repeated headers and a streamed body as fetch gives them", async () => {
    const origin = await httpOrigin();
    const { fetch } = fetchUnder("127.0.0.1/32");
    const res = await fetch(`http://127.0.0.1:${origin.port}/tools`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"a":1}',
    });
    expect(res.status).toBe(200);
    expect(res.headers.getSetCookie()).toEqual(["a=1", "b=2"]);
    expect(await res.text()).toBe(`origin ${origin.port} saw POST /tools`);
    expect(origin.seen[0]).toMatchObject({ body: '{"a":1}', headers: { "content-type": "application/json" } });
  });

  it("fails an answer's body past maxResponseBytes, told by its Content-Length or counted as it streams", async () => {
    const server = createServer((req, res) => {
      if (req.url === "/sized") {
        res.writeHead(200, { "content-length": String(2_000_000) });
        res.end("x".repeat(2_000_000));
        return;
      }
      // An event stream without end, until the client goes.
      res.writeHead(200, { "content-type": "text/event-stream" });
      const chunk = `data: ${"y".repeat(64 * 1024)}\n\n`;
      const timer = setInterval(() => res.write(chunk), 1);
      res.on("close", () => clearInterval(timer));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const port = (server.address() as AddressInfo).port;
    const policy = new EgressPolicy({
      allow: loadConfig({ WF_EGRESS_ALLOW: "127.0.0.1/32" }).WF_EGRESS_ALLOW ?? [],
      hostAddresses: hostAddresses(),
    });
    const f = egressFetch({ policy, maxResponseBytes: 1_000_000 });
    onTestFinished(() => f.close());
    for (const path of ["/sized", "/stream"]) {
      const res = await f.fetch(`http://127.0.0.1:${port}${path}`);
      expect(res.status).toBe(200);
      const failure = await res.text().then(
        () => null,
        (err: unknown) => err,
      );
      expect([path, tooLargeAnswer(failure)]).toEqual([
        path,
        "the answer is larger than 1000000 bytes, the most taken of one answer from such a server",
      ]);
    }
    // Without a bound, the whole answer.
    expect(await (await fetchUnder("127.0.0.1/32").fetch(`http://127.0.0.1:${port}/sized`)).text()).toHaveLength(
      2_000_000,
    );
  });

  it("throws the refusal before connecting to a refused address, a refused name or a literal in another notation", async () => {
    const origin = await httpOrigin();
    const { fetch } = fetchUnder("");
    for (const host of ["127.0.0.1", "localhost", "0x7f.1", "[::ffff:127.0.0.1]"]) {
      const err = await fetch(`http://${host}:${origin.port}/`).catch((e: unknown) => e);
      expect(err, host).toBeInstanceOf(EgressRefusedError);
      expect((err as EgressRefusedError).refusal).toMatchObject({
        rule: "operator",
        reason: expect.stringMatching(/a loopback address \(allow it with WF_EGRESS_ALLOW\)$/),
      });
    }
    expect(origin.connections()).toBe(0);
  });

  it("refuses an MCP URL whose name resolves to a private address without naming the address", async () => {
    const policy = new EgressPolicy({ allow: [], hostAddresses: hostAddresses() });
    const f = egressFetch({ policy, lookup: async () => [{ address: "10.20.30.40", family: 4 }] });
    onTestFinished(() => f.close());
    const err = await f.fetch("https://mcp.corp.example/mcp").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EgressRefusedError);
    expect((err as EgressRefusedError).message).toBe(
      "mcp.corp.example resolves to a private address (allow it with WF_EGRESS_ALLOW)",
    );
  });

  it("never follows a redirect itself: the answer comes back as it is, its target untouched", async () => {
    const target = await httpOrigin("127.0.0.2");
    const server = createServer((_req, res) =>
      res.writeHead(302, { location: `http://127.0.0.2:${target.port}/internal` }).end(),
    );
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const { fetch } = fetchUnder("127.0.0.1/32");
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, { redirect: "follow" });
    expect([res.status, res.headers.get("location")]).toEqual([302, `http://127.0.0.2:${target.port}/internal`]);
    expect(target.connections()).toBe(0);
  });
});
