import { connect, type Socket } from "node:net";

/** One prepared request: its bytes, and what it resolves when the answer has been read in full. */
interface Waiting {
  bytes: Buffer;
  resolve(status: number): void;
}

const CRLF = Buffer.from("\r\n");
const CRLF_CRLF = Buffer.from("\r\n\r\n");
const STATUS_LINE = /^HTTP\/1\.[01] (\d{3})/;
const CONTENT_LENGTH = /\r\ncontent-length:\s*(\d+)/i;
const CHUNKED = /\r\ntransfer-encoding:\s*chunked/i;
const CLOSE = /\r\nconnection:\s*close/i;

/**
 * HTTP/1.1 keep-alive connections for the load tool, one request in flight on each (no pipelining),
 * requests queued in order while all are busy. It writes prepared bytes and reads no more of an
 * answer than its status, length and end: node:http's client cost about 70 µs of the tool's CPU per
 * request against the edge's 150, on the cores the server under test needs
 * (docs/operations.md#benchmarks).
 */
export class KeepAlivePool {
  readonly #idle: Connection[] = [];
  readonly #queue: Waiting[] = [];
  readonly #all = new Set<Connection>();
  #closed = false;

  constructor(
    private readonly host: string,
    private readonly port: number,
    private readonly size: number,
  ) {}

  /** Sends the request; resolves its status once the answer has been read in full, 0 when it failed. */
  send(bytes: Buffer): Promise<number> {
    if (this.#closed) return Promise.resolve(0);
    return new Promise((resolve) => {
      const idle = this.#idle.pop();
      if (idle) idle.send({ bytes, resolve });
      else if (this.#all.size < this.size) this.#open().send({ bytes, resolve });
      else this.#queue.push({ bytes, resolve });
    });
  }

  close(): void {
    this.#closed = true;
    for (const c of this.#all) c.destroy();
    for (const w of this.#queue.splice(0)) w.resolve(0);
  }

  #open(): Connection {
    const c = new Connection(connect({ host: this.host, port: this.port, noDelay: true }), {
      free: () => {
        const next = this.#queue.shift();
        if (next) c.send(next);
        else this.#idle.push(c);
      },
      gone: () => {
        this.#all.delete(c);
        const i = this.#idle.indexOf(c);
        if (i >= 0) this.#idle.splice(i, 1);
        // Someone waiting gets a fresh connection in its place.
        const next = this.#closed ? undefined : this.#queue.shift();
        if (next) this.#open().send(next);
      },
    });
    this.#all.add(c);
    return c;
  }
}

class Connection {
  #current: Waiting | null = null;
  #buffered: Buffer = Buffer.alloc(0);
  #dead = false;

  constructor(
    private readonly socket: Socket,
    private readonly pool: { free(): void; gone(): void },
  ) {
    socket.on("data", (chunk: Buffer) => this.#read(chunk));
    socket.on("error", () => this.#fail());
    socket.on("close", () => this.#fail());
  }

  send(w: Waiting): void {
    if (this.#dead) {
      w.resolve(0);
      return;
    }
    this.#current = w;
    this.socket.write(w.bytes);
  }

  destroy(): void {
    this.socket.destroy();
  }

  #read(chunk: Buffer): void {
    // Bytes nobody asked for: the connection is out of step, and is not used again.
    if (this.#current === null) {
      this.socket.destroy();
      return;
    }
    this.#buffered = this.#buffered.length === 0 ? chunk : Buffer.concat([this.#buffered, chunk]);
    const headEnd = this.#buffered.indexOf(CRLF_CRLF);
    if (headEnd < 0) return;
    const head = this.#buffered.toString("latin1", 0, headEnd);
    const bodyStart = headEnd + CRLF_CRLF.length;
    const length = CONTENT_LENGTH.exec(head);
    const chunked = CHUNKED.test(head);
    const end = length ? bodyStart + Number(length[1]) : chunked ? chunkedEnd(this.#buffered, bodyStart) : bodyStart;
    if (end === null || this.#buffered.length < end) return;
    const w = this.#current;
    this.#current = null;
    w.resolve(Number.isNaN(end) ? 0 : Number(STATUS_LINE.exec(head)?.[1] ?? 0));
    // Without a length the body runs to the close; with bytes past the answer, or a bad chunk,
    // the connection is out of step: either way it is not used again.
    const reusable =
      (length !== null || chunked) && !Number.isNaN(end) && this.#buffered.length === end && !CLOSE.test(head);
    this.#buffered = Buffer.alloc(0);
    if (reusable) this.pool.free();
    else this.socket.destroy();
  }

  #fail(): void {
    if (this.#dead) return;
    this.#dead = true;
    const w = this.#current;
    this.#current = null;
    w?.resolve(0);
    this.socket.destroy();
    this.pool.gone();
  }
}

/**
 * Where a chunked body that starts at `from` ends (past its last chunk and trailers), null while
 * it is incomplete, NaN when a chunk size is not hexadecimal.
 */
function chunkedEnd(buffered: Buffer, from: number): number | null {
  let at = from;
  for (;;) {
    const lineEnd = buffered.indexOf(CRLF, at);
    if (lineEnd < 0) return null;
    const sizeText = buffered.toString("latin1", at, lineEnd).split(";")[0]!.trim();
    if (!/^[0-9a-f]+$/i.test(sizeText)) return NaN;
    const size = parseInt(sizeText, 16);
    if (size === 0) {
      // Trailer lines, if any, then an empty line.
      for (let line = lineEnd + CRLF.length; ;) {
        const next = buffered.indexOf(CRLF, line);
        if (next < 0) return null;
        if (next === line) return next + CRLF.length;
        line = next + CRLF.length;
      }
    }
    at = lineEnd + CRLF.length + size + CRLF.length;
    if (at > buffered.length) return null;
  }
}

/** A POST's bytes as the load tool sends them: keep-alive, JSON body, the given headers. */
export function postBytes(host: string, path: string, headers: Record<string, string>, body: Buffer): Buffer {
  const lines = [
    `POST ${path} HTTP/1.1`,
    `host: ${host}`,
    "connection: keep-alive",
    "content-type: application/json",
    `content-length: ${body.length}`,
  ];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  return Buffer.concat([Buffer.from(`${lines.join("\r\n")}\r\n\r\n`, "latin1"), body]);
}
