import { mkdtemp, rm } from "node:fs/promises";
import { createServer as createHttpServer, request, type Agent, type IncomingHttpHeaders } from "node:http";
import { connect, createServer, type AddressInfo, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { onTestFinished } from "vitest";

/** A socket path in a fresh 0700 directory, removed when the test ends. */
export async function socketPathForTest(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "wf-egress-"));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  return join(dir, "proxy.sock");
}

export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * An HTTP origin on a loopback address: answers `origin <port> saw <method> <url>`, records each request; closed when
 * the test ends.
 */
export async function httpOrigin(
  host = "127.0.0.1",
): Promise<{ port: number; seen: SeenRequest[]; connections: () => number }> {
  const seen: SeenRequest[] = [];
  let connections = 0;
  const server = createHttpServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString() });
      res.setHeader("set-cookie", ["a=1", "b=2"]);
      res.setHeader("x-origin-hop", "dropped");
      res.setHeader("connection", "x-origin-hop");
      res.end(`origin ${port} saw ${req.method} ${req.url}`);
    });
  });
  server.on("connection", () => connections++);
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const port = (server.address() as AddressInfo).port;
  onTestFinished(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { port, seen, connections: () => connections };
}

/** A TCP origin that answers every chunk with `echo:` and the chunk; its live sockets are kept. */
export async function echoOrigin(
  host = "127.0.0.1",
): Promise<{ port: number; sockets: Set<Socket>; accepted: () => number }> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server = createServer((socket) => {
    accepted++;
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => socket.destroy());
    socket.on("data", (chunk) => socket.write(`echo:${chunk.toString()}`));
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  onTestFinished(() => {
    for (const s of sockets) s.destroy();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { port: (server.address() as AddressInfo).port, sockets, accepted: () => accepted };
}

/** Sends `CONNECT authority` over the proxy's Unix socket and reads the answer's head. */
export function rawConnect(
  socketPath: string,
  authority: string,
): Promise<{ status: number; head: string; socket: Socket; rest: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(socketPath);
    socket.on("error", reject);
    let buffered = "";
    const onData = (chunk: Buffer) => {
      buffered += chunk.toString("latin1");
      const end = buffered.indexOf("\r\n\r\n");
      if (end < 0) return;
      socket.off("data", onData);
      const head = buffered.slice(0, end);
      resolve({ status: Number(head.split(" ")[1]), head, socket, rest: buffered.slice(end + 4) });
    };
    socket.on("data", onData);
    socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\nProxy-Authorization: Basic c2VjcmV0\r\n\r\n`);
  });
}

/** Everything `socket` still sends until it ends, after `already`. */
export function readToEnd(socket: Socket, already = ""): Promise<string> {
  return new Promise((resolve) => {
    let text = already;
    socket.on("data", (chunk: Buffer) => (text += chunk.toString()));
    socket.on("close", () => resolve(text));
  });
}

/** The next chunk `socket` receives. */
export function nextChunk(socket: Socket): Promise<string> {
  return new Promise((resolve) => socket.once("data", (chunk: Buffer) => resolve(chunk.toString())));
}

export interface ProxiedAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  rawHeaders: string[];
  body: string;
  /** Whether the request went over a connection an earlier one had opened. */
  reusedSocket: boolean;
}

/**
 * An absolute-form request (`GET http://…`) over the proxy's Unix socket, as an HTTP client configured with a proxy
 * sends it.
 */
export function viaProxy(
  socketPath: string,
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string; agent?: Agent } = {},
): Promise<ProxiedAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        socketPath,
        path: url,
        method: init.method ?? "GET",
        headers: init.headers ?? {},
        ...(init.agent ? { agent: init.agent } : {}),
      },
      (res) => {
        let body = "";
        res.on("data", (c: Buffer) => (body += c.toString()));
        res.on("end", () =>
          resolve({
            status: res.statusCode!,
            headers: res.headers,
            rawHeaders: res.rawHeaders,
            body,
            reusedSocket: req.reusedSocket,
          }),
        );
      },
    );
    req.on("error", reject);
    req.end(init.body);
  });
}
