import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { createServer as createHttpsServer } from "node:https";
import { connect, createServer, type AddressInfo, type Socket } from "node:net";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { loadConfig } from "@wf/shared/config";
import { createLogger } from "@wf/shared/log";
import { hostAddresses } from "./host-addresses";
import { EgressPolicy } from "./policy";
import { EgressProxy, type SessionRefusal } from "./proxy";
import { httpOrigin, socketPathForTest } from "./testing/origins";

const run = promisify(execFile);

async function has(command: string, versionArg: string): Promise<boolean> {
  return run(command, [versionArg]).then(
    () => true,
    () => false,
  );
}

const tools = { curl: await has("curl", "--version"), openssl: await has("openssl", "version") };
let proxy: EgressProxy;
beforeAll(() => {
  const allow = loadConfig({ WF_EGRESS_ALLOW: "127.0.0.1/32" }).WF_EGRESS_ALLOW ?? [];
  proxy = new EgressProxy({
    policy: new EgressPolicy({ allow, hostAddresses: hostAddresses() }),
    log: createLogger("silent"),
  });
});
afterAll(() => proxy?.close());

/** A self-signed certificate for 127.0.0.1 and 127.0.0.2, in a directory removed when the test ends. */
async function certificate(): Promise<{ key: string; cert: string; certFile: string }> {
  const dir = dirname(await socketPathForTest());
  const [keyFile, certFile] = [join(dir, "key.pem"), join(dir, "cert.pem")];
  await run("openssl", [
    "req",
    "-x509",
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:prime256v1",
    "-nodes",
    "-keyout",
    keyFile,
    "-out",
    certFile,
    "-days",
    "1",
    "-subj",
    "/CN=egress-test",
    "-addext",
    "subjectAltName=IP:127.0.0.1,IP:127.0.0.2",
  ]);
  return { key: await readFile(keyFile, "utf8"), cert: await readFile(certFile, "utf8"), certFile };
}

async function tlsOrigin(
  tls: { key: string; cert: string },
  host: string,
): Promise<{ port: number; requests: () => number }> {
  let requests = 0;
  const server = createHttpsServer(tls, (req, res) => {
    requests++;
    res.end(`tls origin saw ${req.url}`);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  onTestFinished(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { port: (server.address() as AddressInfo).port, requests: () => requests };
}

/** What the sandbox's forwarder does: each TCP connection to 127.0.0.1:<port> relayed to the session's Unix socket. */
async function forwarder(socketPath: string): Promise<number> {
  const live = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(socketPath);
    for (const s of [client, upstream]) {
      live.add(s);
      s.on("error", () => (client.destroy(), upstream.destroy()));
      s.on("close", () => live.delete(s));
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  onTestFinished(() => {
    for (const s of live) s.destroy();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return (server.address() as AddressInfo).port;
}

/** curl as a step would run it: the proxy from the environment, nothing else of ours. */
function curl(proxyPort: number, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const proxyUrl = `http://127.0.0.1:${proxyPort}`;
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    http_proxy: proxyUrl,
    https_proxy: proxyUrl,
    HTTPS_PROXY: proxyUrl,
    NO_PROXY: "",
    no_proxy: "",
  };
  return run("curl", ["-sS", "--max-time", "20", ...args], { env }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (err: { code: number; stdout: string; stderr: string }) => ({
      code: err.code,
      stdout: err.stdout,
      stderr: err.stderr,
    }),
  );
}

describe("egress proxy with a real curl behind a TCP forwarder", () => {
  it("curl reaches an HTTPS origin through CONNECT and an HTTP one through absolute-form; a refused one gets the 403", async (ctx) => {
    ctx.skip(!tools.curl || !tools.openssl, "curl and openssl are needed for this test");
    const tls = await certificate();
    const [allowed, refusedOrigin, web] = await Promise.all([
      tlsOrigin(tls, "127.0.0.1"),
      tlsOrigin(tls, "127.0.0.2"),
      httpOrigin(),
    ]);
    const refused: SessionRefusal[] = [];
    const session = await proxy.open({ socketPath: await socketPathForTest(), onRefused: (r) => refused.push(r) });
    onTestFinished(() => session.close());
    const port = await forwarder(session.socketPath);

    const https = await curl(port, ["--cacert", tls.certFile, `https://127.0.0.1:${allowed.port}/hello`]);
    expect(https).toEqual({ code: 0, stdout: "tls origin saw /hello", stderr: "" });

    const http = await curl(port, [`http://127.0.0.1:${web.port}/plain?x=1`]);
    expect(http).toEqual({ code: 0, stdout: `origin ${web.port} saw GET /plain?x=1`, stderr: "" });
    expect(web.seen[0]!.headers["user-agent"]).toMatch(/^curl\//);

    const blocked = await curl(port, ["--cacert", tls.certFile, `https://127.0.0.2:${refusedOrigin.port}/secret`]);
    expect(blocked.code).toBe(56);
    expect(blocked.stderr).toMatch(/CONNECT tunnel failed, response 403/);
    expect(refused).toEqual([
      {
        host: "127.0.0.2",
        port: refusedOrigin.port,
        reason: "127.0.0.2 is a loopback address (allow it with WF_EGRESS_ALLOW)",
        rule: "operator",
      },
    ]);
    expect(refusedOrigin.requests()).toBe(0);

    const blockedPlain = await curl(port, ["-i", `http://127.0.0.2:${web.port}/`]);
    expect(blockedPlain.stdout).toMatch(
      /^HTTP\/1\.1 403 Forbidden\r\n[\s\S]*\r\n\r\negress refused: 127\.0\.0\.2 is a loopback address \(allow it with WF_EGRESS_ALLOW\)\n$/,
    );
  });
});
