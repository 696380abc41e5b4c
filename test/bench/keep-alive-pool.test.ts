import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { KeepAlivePool, postBytes } from "./keep-alive-pool";

interface Seen {
  inFlight: number;
  mostInFlight: number;
  perSocket: Map<unknown, number>;
  mostPerSocket: number;
  bodies: string[];
  sockets: Set<unknown>;
}

let server: Server | undefined;

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
  server = undefined;
});

/** A real HTTP server that answers by path, recording concurrency per server and per socket. */
async function serve(answer: (req: IncomingMessage, res: ServerResponse, body: string) => void): Promise<{ port: number; seen: Seen }> {
  const seen: Seen = { inFlight: 0, mostInFlight: 0, perSocket: new Map(), mostPerSocket: 0, bodies: [], sockets: new Set() };
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    seen.inFlight++;
    seen.mostInFlight = Math.max(seen.mostInFlight, seen.inFlight);
    const onSocket = (seen.perSocket.get(req.socket) ?? 0) + 1;
    seen.perSocket.set(req.socket, onSocket);
    seen.mostPerSocket = Math.max(seen.mostPerSocket, onSocket);
    seen.sockets.add(req.socket);
    res.once("finish", () => {
      seen.inFlight--;
      seen.perSocket.set(req.socket, seen.perSocket.get(req.socket)! - 1);
    });
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString();
      seen.bodies.push(body);
      answer(req, res, body);
    });
  });
  await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
  return { port: (server!.address() as AddressInfo).port, seen };
}

const post = (port: number, path: string, body = "{}", headers: Record<string, string> = {}) => postBytes(`127.0.0.1:${port}`, path, headers, Buffer.from(body));

describe("KeepAlivePool (the bench's load tool)", () => {
  it("sends each body whole with its headers and resolves each answer's status once it is read in full, one request per connection at a time", async () => {
    const { port, seen } = await serve((req, res, body) => {
      const status = Number(req.url!.slice(1));
      // The head first and the body a moment later: the pool must wait for the whole answer.
      res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body), "x-seen": req.headers["x-tag"] ?? "" });
      setTimeout(() => res.end(body), 5);
    });
    const pool = new KeepAlivePool("127.0.0.1", port, 2);
    const statuses = await Promise.all(Array.from({ length: 20 }, (_, i) => pool.send(post(port, i % 2 ? "/202" : "/429", JSON.stringify({ i }), { "x-tag": "t" }))));
    pool.close();
    expect(statuses).toEqual(Array.from({ length: 20 }, (_, i) => (i % 2 ? 202 : 429)));
    expect(seen.bodies.map((b) => (JSON.parse(b) as { i: number }).i).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(seen.mostInFlight).toBe(2);
    expect(seen.mostPerSocket).toBe(1);
    expect(seen.sockets.size).toBe(2);
  });

  it("reads chunked answers to their end, and replaces a connection the server closes", async () => {
    const { port, seen } = await serve((req, res) => {
      if (req.url === "/close") {
        res.writeHead(200, { connection: "close", "content-length": 2 });
        res.end("ok");
        return;
      }
      res.writeHead(201, { "content-type": "text/plain" });
      res.write("first chunk ");
      setTimeout(() => res.end("last chunk"), 5);
    });
    const pool = new KeepAlivePool("127.0.0.1", port, 1);
    expect(await pool.send(post(port, "/chunked"))).toBe(201);
    expect(await pool.send(post(port, "/close"))).toBe(200);
    expect(await pool.send(post(port, "/chunked"))).toBe(201);
    pool.close();
    expect(seen.sockets.size).toBe(2);
  });

  it("answers 0 for a request that cannot be sent", async () => {
    const { port } = await serve((_req, res) => res.end());
    await new Promise((r) => server!.close(r));
    const pool = new KeepAlivePool("127.0.0.1", port, 2);
    expect(await Promise.all([pool.send(post(port, "/")), pool.send(post(port, "/")), pool.send(post(port, "/"))])).toEqual([0, 0, 0]);
    pool.close();
  });
});
