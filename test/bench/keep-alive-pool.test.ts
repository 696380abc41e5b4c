import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createNetServer, type AddressInfo, type Server as NetServer, type Socket } from "node:net";
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
let raw: NetServer | undefined;
const rawSockets = new Set<Socket>();

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((r) => (server ? server.close(r) : r(undefined)));
  server = undefined;
  for (const socket of rawSockets) socket.destroy();
  await new Promise((r) => (raw ? raw.close(r) : r(undefined)));
  raw = undefined;
});

/** A real HTTP server that answers by path, recording concurrency per server and per socket. */
async function serve(
  answer: (req: IncomingMessage, res: ServerResponse, body: string) => void,
): Promise<{ port: number; seen: Seen }> {
  const seen: Seen = {
    inFlight: 0,
    mostInFlight: 0,
    perSocket: new Map(),
    mostPerSocket: 0,
    bodies: [],
    sockets: new Set(),
  };
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

const post = (port: number, path: string, body = "{}", headers: Record<string, string> = {}) =>
  postBytes(`127.0.0.1:${port}`, path, headers, Buffer.from(body));

describe("KeepAlivePool (the bench's load tool)", () => {
  it("sends each body whole with its headers and resolves each answer's status once it is read in full, one request per connection at a time", async () => {
    const { port, seen } = await serve((req, res, body) => {
      const status = Number(req.url!.slice(1));
      // The head first and the body a moment later: the pool must wait for the whole answer.
      res.writeHead(status, {
        "content-type": "application/json",
        "content-length": Buffer.byteLength(body),
        "x-seen": req.headers["x-tag"] ?? "",
      });
      res.flushHeaders();
      setTimeout(() => res.end(body), 5);
    });
    const pool = new KeepAlivePool("127.0.0.1", port, 2);
    const statuses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        pool.send(post(port, i % 2 ? "/202" : "/429", JSON.stringify({ i }), { "x-tag": "t" })),
      ),
    );
    pool.close();
    expect(statuses).toEqual(Array.from({ length: 20 }, (_, i) => (i % 2 ? 202 : 429)));
    expect(seen.bodies.map((b) => (JSON.parse(b) as { i: number }).i).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 20 }, (_, i) => i),
    );
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

  it("reads a chunked answer by its chunk sizes (a size ending in 0, trailers), and drops a connection that sends more than asked", async () => {
    const answers = [
      // 0x10 bytes of data that begin with CRLF: a naive search for the last chunk ends early.
      "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n10\r\n\r\n0\r\n\r\nabcdefghi\r\n0\r\nx-trailer: 1\r\n\r\n",
      "HTTP/1.1 202 Accepted\r\ncontent-length: 2\r\n\r\nokSTRAY",
      "HTTP/1.1 204 No Content\r\ncontent-length: 0\r\n\r\n",
    ];
    let served = 0;
    raw = createNetServer((socket) => {
      rawSockets.add(socket);
      socket.on("data", () => {
        const answer = answers[served++]!;
        // In two writes: the head and the start of the body, then the rest.
        socket.write(answer.slice(0, 40));
        setTimeout(() => socket.write(answer.slice(40)), 5);
      });
    });
    await new Promise<void>((r) => raw!.listen(0, "127.0.0.1", r));
    const port = (raw.address() as AddressInfo).port;
    const pool = new KeepAlivePool("127.0.0.1", port, 1);
    expect(await pool.send(post(port, "/"))).toBe(200);
    expect(await pool.send(post(port, "/"))).toBe(202);
    // The stray bytes after the 202 ended that connection; the next answer comes on a new one.
    expect(await pool.send(post(port, "/"))).toBe(204);
    pool.close();
    expect(rawSockets.size).toBe(2);
  });

  it("answers 0 for a request that cannot be sent", async () => {
    const { port } = await serve((_req, res) => res.end());
    await new Promise((r) => server!.close(r));
    const pool = new KeepAlivePool("127.0.0.1", port, 2);
    expect(
      await Promise.all([pool.send(post(port, "/")), pool.send(post(port, "/")), pool.send(post(port, "/"))]),
    ).toEqual([0, 0, 0]);
    pool.close();
  });
});
