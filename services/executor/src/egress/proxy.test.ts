import { existsSync, statSync } from "node:fs";
import { Agent } from "node:http";
import { connect } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "@wf/shared/config";
import { createLogger } from "@wf/shared/log";
import { waitFor } from "@wf/testing";
import type { DnsLookup } from "./check";
import { hostAddresses } from "./host-addresses";
import { EgressPolicy, narrowing } from "./policy";
import { EgressProxy, type EgressSession, type EgressSessionOptions, type SessionRefusal } from "./proxy";
import type { EgressLimits } from "./context";
import {
  echoOrigin,
  httpOrigin,
  nextChunk,
  rawConnect,
  readToEnd,
  socketPathForTest,
  viaProxy,
} from "./testing/origins";

const log = createLogger("silent");
const proxies: EgressProxy[] = [];
afterEach(async () => {
  await Promise.all(proxies.splice(0).map((p) => p.close()));
});

/**
 * A proxy under WF_EGRESS_ALLOW = `allow` (the tests' origins listen on 127.0.0.1: `127.0.0.1/32` lets them be
 * reached).
 */
function proxyWith(allow: string, more: { dnsLookup?: DnsLookup; limits?: Partial<EgressLimits> } = {}): EgressProxy {
  const policy = new EgressPolicy({
    allow: loadConfig({ WF_EGRESS_ALLOW: allow }).WF_EGRESS_ALLOW ?? [],
    hostAddresses: hostAddresses(),
  });
  const proxy = new EgressProxy({ policy, log, ...more });
  proxies.push(proxy);
  return proxy;
}

async function openSession(
  proxy: EgressProxy,
  opts: Partial<EgressSessionOptions> = {},
): Promise<{ session: EgressSession; refused: SessionRefusal[] }> {
  const refused: SessionRefusal[] = [];
  const session = await proxy.open({
    socketPath: await socketPathForTest(),
    onRefused: (r) => refused.push(r),
    ...opts,
  });
  return { session, refused };
}

describe("egress proxy: forwarding and tunnelling", () => {
  it("forwards absolute-form requests on one kept-alive client connection, without hop-by-hop headers or the proxy's credentials", async () => {
    const origin = await httpOrigin();
    const { session } = await openSession(proxyWith("127.0.0.1/32"));
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const first = await viaProxy(session.socketPath, `http://127.0.0.1:${origin.port}/a?q=1`, {
        headers: {
          "proxy-authorization": "Basic c2VjcmV0",
          connection: "keep-alive, x-hop",
          "x-hop": "dropped",
          "x-end": "kept",
          host: "wrong.example",
        },
        agent,
      });
      const second = await viaProxy(session.socketPath, `http://127.0.0.1:${origin.port}/b`, {
        method: "POST",
        body: "payload",
        agent,
      });
      expect([first.status, first.body]).toEqual([200, `origin ${origin.port} saw GET /a?q=1`]);
      expect([second.status, second.body]).toEqual([200, `origin ${origin.port} saw POST /b`]);
      expect(second.reusedSocket).toBe(true);
      const [a, b] = origin.seen;
      expect(a!.headers).toMatchObject({ "x-end": "kept", host: `127.0.0.1:${origin.port}` });
      expect(a!.headers).not.toHaveProperty("proxy-authorization");
      expect(a!.headers).not.toHaveProperty("x-hop");
      expect(b!.body).toBe("payload");
      // The answer's own hop-by-hop header is dropped too; repeated headers stay repeated.
      expect(first.headers).not.toHaveProperty("x-origin-hop");
      expect(first.headers["set-cookie"]).toEqual(["a=1", "b=2"]);
    } finally {
      agent.destroy();
    }
  });

  it("tunnels CONNECT to an allowed TCP origin, both ways, bytes sent with the request included", async () => {
    const origin = await echoOrigin();
    const { session } = await openSession(proxyWith("127.0.0.1/32"));
    const { status, socket } = await rawConnect(session.socketPath, `127.0.0.1:${origin.port}`);
    expect(status).toBe(200);
    const answer = nextChunk(socket);
    socket.write("ping");
    expect(await answer).toBe("echo:ping");
    socket.destroy();
  });

  it("answers 400 to a request that is neither absolute-form nor CONNECT", async () => {
    const { session } = await openSession(proxyWith("127.0.0.1/32"));
    const answer = await viaProxy(session.socketPath, "/just-a-path");
    expect(answer.status).toBe(400);
    expect(answer.body).toMatch(/^egress: this is a proxy/);
  });

  it("answers 502 naming the destination when its name does not resolve or it refuses the connection", async () => {
    const { session, refused } = await openSession(
      proxyWith("127.0.0.1/32", {
        dnsLookup: async () => Promise.reject(Object.assign(new Error("no"), { code: "ENOTFOUND" })),
      }),
    );
    const unresolved = await viaProxy(session.socketPath, "http://nowhere.example/");
    expect([unresolved.status, unresolved.body]).toEqual([502, "egress: cannot resolve nowhere.example: ENOTFOUND\n"]);
    const free = await rawConnect(session.socketPath, `127.0.0.1:1`);
    expect(free.status).toBe(502);
    expect(await readToEnd(free.socket, free.rest)).toBe("egress: cannot connect to 127.0.0.1:1: ECONNREFUSED\n");
    expect(refused).toEqual([]);
  });

  it("answers 431 to headers over the limit", async () => {
    const { session } = await openSession(proxyWith("127.0.0.1/32", { limits: { maxHeaderBytes: 1024 } }));
    const answer = await viaProxy(session.socketPath, "http://127.0.0.1:1/", {
      headers: { "x-big": "a".repeat(2048) },
    });
    expect(answer.status).toBe(431);
  });

  it("closes a client connection idle longer than the idle timeout, and a silent tunnel too", async () => {
    const origin = await echoOrigin();
    const { session } = await openSession(proxyWith("127.0.0.1/32", { limits: { idleTimeoutMs: 300 } }));
    const silent = connect(session.socketPath);
    const closed = new Promise<number>((resolve) => silent.on("close", () => resolve(performance.now())));
    const { socket: tunnel } = await rawConnect(session.socketPath, `127.0.0.1:${origin.port}`);
    const started = performance.now();
    const tunnelClosed = new Promise<number>((resolve) => tunnel.on("close", () => resolve(performance.now())));
    expect((await closed) - started).toBeLessThan(5_000);
    expect((await tunnelClosed) - started).toBeGreaterThanOrEqual(250);
    await waitFor(() => origin.sockets.size === 0, { timeoutMs: 5_000, what: "the tunnel's origin side to be closed" });
  });
});

describe("egress proxy: policy", () => {
  it("refuses loopback without the operator's allowance: 403 saying why, the callback told, the origin never reached", async () => {
    const [web, tcp] = await Promise.all([httpOrigin(), echoOrigin()]);
    const { session, refused } = await openSession(proxyWith(""));
    const viaForward = await viaProxy(session.socketPath, `http://127.0.0.1:${web.port}/secret`);
    expect([viaForward.status, viaForward.body]).toEqual([
      403,
      "egress refused: 127.0.0.1 is a loopback address (allow it with WF_EGRESS_ALLOW)\n",
    ]);
    const viaConnect = await rawConnect(session.socketPath, `127.0.0.1:${tcp.port}`);
    expect(viaConnect.status).toBe(403);
    expect(await readToEnd(viaConnect.socket, viaConnect.rest)).toBe(
      "egress refused: 127.0.0.1 is a loopback address (allow it with WF_EGRESS_ALLOW)\n",
    );
    expect(refused).toEqual([
      {
        host: "127.0.0.1",
        port: web.port,
        reason: "127.0.0.1 is a loopback address (allow it with WF_EGRESS_ALLOW)",
        rule: "operator",
      },
      {
        host: "127.0.0.1",
        port: tcp.port,
        reason: "127.0.0.1 is a loopback address (allow it with WF_EGRESS_ALLOW)",
        rule: "operator",
      },
    ]);
    expect(web.connections()).toBe(0);
    expect(tcp.accepted()).toBe(0);
  });

  it("a narrowing list lets one server through and refuses another on another port", async () => {
    const [listed, other] = await Promise.all([httpOrigin(), httpOrigin()]);
    const { session, refused } = await openSession(proxyWith("127.0.0.1/32"), {
      allow: [narrowing("the workflow's network.allow list", [`127.0.0.1:${listed.port}`, "api.github.com"])],
    });
    expect((await viaProxy(session.socketPath, `http://127.0.0.1:${listed.port}/`)).status).toBe(200);
    const refusedAnswer = await viaProxy(session.socketPath, `http://127.0.0.1:${other.port}/`);
    expect([refusedAnswer.status, refusedAnswer.body]).toEqual([
      403,
      `egress refused: 127.0.0.1:${other.port} is not in the workflow's network.allow list\n`,
    ]);
    expect(refused).toEqual([
      {
        host: "127.0.0.1",
        port: other.port,
        reason: `127.0.0.1:${other.port} is not in the workflow's network.allow list`,
        rule: "narrowing",
      },
    ]);
    expect(other.connections()).toBe(0);
  });

  it("a narrowing list cannot widen the operator's policy", async () => {
    const origin = await httpOrigin();
    const { session, refused } = await openSession(proxyWith(""), {
      allow: [narrowing("the workflow's network.allow list", ["127.0.0.1", "localhost"])],
    });
    expect((await viaProxy(session.socketPath, `http://127.0.0.1:${origin.port}/`)).status).toBe(403);
    expect(refused.map((r) => r.rule)).toEqual(["operator"]);
  });

  it("refuses a name that resolves to loopback (the system resolver's localhost)", async () => {
    const origin = await echoOrigin();
    const { session, refused } = await openSession(proxyWith(""));
    const { status, socket, rest } = await rawConnect(session.socketPath, `localhost:${origin.port}`);
    expect(status).toBe(403);
    expect(await readToEnd(socket, rest)).toBe(
      "egress refused: localhost resolves to a loopback address (allow it with WF_EGRESS_ALLOW)\n",
    );
    expect(refused).toMatchObject([{ host: "localhost", port: origin.port, rule: "operator" }]);
    expect(origin.accepted()).toBe(0);
  });

  it("names the host a refused name was asked as and the kind of address, never the address it resolves to", async () => {
    const internal = async () => [{ address: "10.20.30.40", family: 4 }];
    const { session, refused } = await openSession(proxyWith("", { dnsLookup: internal }));
    const tunnelled = await rawConnect(session.socketPath, "DB.Corp.Example:5432");
    const tunnelAnswer = `${tunnelled.status} ${await readToEnd(tunnelled.socket, tunnelled.rest)}`;
    const forwarded = await viaProxy(session.socketPath, "http://db.corp.example/");
    const answers = [tunnelAnswer, `${forwarded.status} ${forwarded.body}`];
    expect(answers).toEqual([
      "403 egress refused: db.corp.example resolves to a private address (allow it with WF_EGRESS_ALLOW)\n",
      "403 egress refused: db.corp.example resolves to a private address (allow it with WF_EGRESS_ALLOW)\n",
    ]);
    expect(JSON.stringify(refused)).not.toContain("10.20.30.40");
    expect(refused).toEqual([
      {
        host: "db.corp.example",
        port: 5432,
        reason: "db.corp.example resolves to a private address (allow it with WF_EGRESS_ALLOW)",
        rule: "operator",
      },
      {
        host: "db.corp.example",
        port: 80,
        reason: "db.corp.example resolves to a private address (allow it with WF_EGRESS_ALLOW)",
        rule: "operator",
      },
    ]);
  });

  it("resolves a name once and connects to the address it checked, whatever DNS answers next (no rebinding)", async () => {
    const origin = await echoOrigin();
    let lookups = 0;
    // An attacker's DNS: an allowed address when checked, the metadata service on any later lookup.
    const rebinding: DnsLookup = async () => [
      { address: lookups++ === 0 ? "127.0.0.1" : "169.254.169.254", family: 4 },
    ];
    const { session } = await openSession(proxyWith(`127.0.0.1:${origin.port}`, { dnsLookup: rebinding }));
    const { status, socket } = await rawConnect(session.socketPath, `rebind.attacker.example:${origin.port}`);
    expect(status).toBe(200);
    const answer = nextChunk(socket);
    socket.write("who");
    expect(await answer).toBe("echo:who");
    expect(lookups).toBe(1);
    expect(origin.accepted()).toBe(1);
    socket.destroy();
  });

  it.each([
    "2130706433",
    "0177.0.0.1",
    "0x7f.0.0.1",
    "127.1",
    "[::ffff:127.0.0.1]",
    "[::ffff:7f00:1]",
    "[::127.0.0.1]",
    "[::1]",
    "[0:0:0:0:0:0:0:1]",
  ])("refuses the loopback literal %s over CONNECT and absolute-form", async (literal) => {
    const origin = await httpOrigin();
    const { session, refused } = await openSession(proxyWith(""));
    const tunnel = await rawConnect(session.socketPath, `${literal}:${origin.port}`);
    expect(tunnel.status).toBe(403);
    tunnel.socket.destroy();
    const forwarded = await viaProxy(session.socketPath, `http://${literal}:${origin.port}/`);
    expect(forwarded.status).toBe(403);
    expect(refused).toHaveLength(2);
    for (const r of refused)
      expect(r).toMatchObject({ rule: "operator", reason: expect.stringMatching(/is a loopback address/) });
    expect(origin.connections()).toBe(0);
  });

  it("reads a literal the way it refuses it: with the allowance, 2130706433 reaches the origin on 127.0.0.1", async () => {
    const origin = await httpOrigin();
    const { session } = await openSession(proxyWith("127.0.0.1/32"));
    const answer = await viaProxy(session.socketPath, `http://2130706433:${origin.port}/n`);
    expect([answer.status, answer.body]).toEqual([200, `origin ${origin.port} saw GET /n`]);
  });

  it("refuses an IPv6 zone id and a malformed authority, saying so", async () => {
    const { session, refused } = await openSession(proxyWith("0.0.0.0/0,::/0"));
    for (const authority of ["[fe80::1%25lo]:80", "[fe80::1%lo]:80", "127.0.0.1:0", "example.com"]) {
      const { status, socket } = await rawConnect(session.socketPath, authority);
      expect(status, authority).toBe(403);
      socket.destroy();
    }
    expect(refused.map((r) => [r.rule, r.reason])).toEqual([
      ["malformed", '"[fe80::1%25lo]": IPv6 zone ids are refused'],
      ["malformed", '"[fe80::1%lo]": IPv6 zone ids are refused'],
      ["malformed", "port 0 is not a port number"],
      ["malformed", '"example.com" is not host:port'],
    ]);
  });
});

describe("egress proxy: sessions", () => {
  it("listens on a socket only its owner can connect to, removed when the session closes", async () => {
    const { session } = await openSession(proxyWith(""));
    expect(statSync(session.socketPath).mode & 0o777).toBe(0o600);
    await session.close();
    expect(existsSync(session.socketPath)).toBe(false);
  });

  it("caps the connections a session holds: past the cap 503 and a report, and room again once one closes", async () => {
    const origin = await echoOrigin();
    const { session, refused } = await openSession(proxyWith("127.0.0.1/32", { limits: { maxConnections: 2 } }));
    const held = await Promise.all([1, 2].map(() => rawConnect(session.socketPath, `127.0.0.1:${origin.port}`)));
    expect(held.map((h) => h.status)).toEqual([200, 200]);
    const over = await rawConnect(session.socketPath, `127.0.0.1:${origin.port}`);
    expect(over.status).toBe(503);
    expect(await readToEnd(over.socket, over.rest)).toBe("egress refused: more than 2 connections at once\n");
    expect(refused).toEqual([{ rule: "connection-cap", reason: "more than 2 connections at once" }]);
    held[0]!.socket.destroy();
    await waitFor(() => session.connections < 2, { timeoutMs: 5_000, what: "the closed tunnel to leave the session" });
    const again = await rawConnect(session.socketPath, `127.0.0.1:${origin.port}`);
    expect(again.status).toBe(200);
    for (const c of [held[1]!, again]) c.socket.destroy();
  });

  it("closing a session destroys its live tunnels at both ends, and leaves other sessions alone", async () => {
    const origin = await echoOrigin();
    const proxy = proxyWith("127.0.0.1/32");
    const [{ session }, { session: other }] = await Promise.all([openSession(proxy), openSession(proxy)]);
    const mine = await rawConnect(session.socketPath, `127.0.0.1:${origin.port}`);
    const theirs = await rawConnect(other.socketPath, `127.0.0.1:${origin.port}`);
    await waitFor(() => origin.sockets.size === 2, { timeoutMs: 5_000, what: "both tunnels to reach the origin" });
    const mineClosed = readToEnd(mine.socket);
    await session.close();
    await mineClosed;
    await waitFor(() => origin.sockets.size === 1, {
      timeoutMs: 5_000,
      what: "the closed session's tunnel to be closed at the origin",
    });
    const answer = nextChunk(theirs.socket);
    theirs.socket.write("still");
    expect(await answer).toBe("echo:still");
    await expect(rawConnect(session.socketPath, `127.0.0.1:${origin.port}`)).rejects.toMatchObject({ code: "ENOENT" });
    theirs.socket.destroy();
  });

  it("a closed proxy closes its sessions and opens no more", async () => {
    const proxy = proxyWith("");
    const { session } = await openSession(proxy);
    await proxy.close();
    expect(existsSync(session.socketPath)).toBe(false);
    await expect(proxy.open({ socketPath: await socketPathForTest(), onRefused: () => undefined })).rejects.toThrow(
      "the egress proxy is closed",
    );
  });
});
