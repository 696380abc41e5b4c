import { chmodSync } from "node:fs";
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server as HttpServer,
  type ServerResponse,
} from "node:http";
import { createServer, type Server, type Socket } from "node:net";
import type { Logger } from "@wf/shared/log";
import { systemLookup, type DnsLookup } from "./check";
import { DEFAULT_LIMITS, type EgressLimits, type RequestContext } from "./context";
import { forward } from "./forward";
import type { EgressPolicy, EgressRefusal, Narrowing } from "./policy";
import { rawAnswer } from "./raw-answer";
import { tunnel } from "./tunnel";

export interface EgressProxyOptions {
  policy: EgressPolicy;
  /** Resolves names; the system's resolver (getaddrinfo) by default. */
  dnsLookup?: DnsLookup;
  log: Logger;
  limits?: Partial<EgressLimits>;
}

/** A refused connection: a destination the policy refused, or one over the session's cap. */
export type SessionRefusal = EgressRefusal | { rule: "connection-cap"; reason: string };

export interface EgressSessionOptions {
  /**
   * Where to listen. The socket is made 0600 as soon as it is bound; until then it has the
   * process umask's mode, so put it in a directory only the service can enter (0700). The path
   * must not exist.
   */
  socketPath: string;
  /** Narrowing lists (see `narrowing`): a destination must be in each. None: the policy alone decides. */
  allow?: readonly Narrowing[];
  /** Called once per refused connection, before the client gets its 403 (or 503). */
  onRefused(refusal: SessionRefusal): void;
}

export interface EgressSession {
  readonly socketPath: string;
  /** Client connections open now. */
  readonly connections: number;
  /** Stops listening (the socket file is removed) and destroys every connection, tunnels included. */
  close(): Promise<void>;
}

/**
 * The HTTP proxy that is a sandboxed step's only way out: one session per step, each on a Unix socket
 * of its own that the step's forwarder relays its connections to. It serves `CONNECT host:port` and
 * absolute-form requests; every destination passes `policy` and the session's narrowing lists, is
 * resolved once and connected to at a checked address only (docs/sandbox.md#egress). One HTTP parser
 * serves every session, so opening one costs about what binding a socket does.
 */
export class EgressProxy {
  private readonly http: HttpServer;
  /** Every socket the HTTP server sees was handed to it by a session, which is recorded here. */
  private readonly sessionOf = new WeakMap<Socket, Session>();
  private readonly sessions = new Set<Session>();
  private readonly limits: EgressLimits;
  private closed = false;

  constructor(private readonly opts: EgressProxyOptions) {
    this.limits = { ...DEFAULT_LIMITS, ...opts.limits };
    this.http = createHttpServer({ maxHeaderSize: this.limits.maxHeaderBytes, requireHostHeader: false }, (req, res) =>
      this.onRequest(req, res),
    );
    // Idle clients: while waiting for a request line, between requests, and during a forwarded one.
    this.http.timeout = this.limits.idleTimeoutMs;
    this.http.keepAliveTimeout = this.limits.idleTimeoutMs;
    this.http.on("connect", (req: IncomingMessage, socket: Socket, head: Buffer) => this.onConnect(req, socket, head));
  }

  async open(opts: EgressSessionOptions): Promise<EgressSession> {
    if (this.closed) throw new Error("the egress proxy is closed");
    const ctx: RequestContext = {
      policy: this.opts.policy,
      lookup: this.opts.dnsLookup ?? systemLookup,
      limits: this.limits,
      log: this.opts.log,
      narrowing: opts.allow ?? [],
      onRefused: opts.onRefused,
    };
    const server = createServer({ noDelay: true });
    const session = new Session(opts.socketPath, server, ctx, opts.onRefused, () => this.sessions.delete(session));
    server.on("connection", (socket) => {
      if (!session.admit(socket)) return;
      this.sessionOf.set(socket, session);
      this.http.emit("connection", socket);
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(opts.socketPath, () => {
        server.off("error", reject);
        resolve();
      });
    });
    try {
      // Synchronous: one quick syscall, and the socket must not stay open to others a moment longer.
      chmodSync(opts.socketPath, 0o600);
      if (this.closed) throw new Error("the egress proxy is closed");
    } catch (err) {
      await session.close();
      throw err;
    }
    this.sessions.add(session);
    return session;
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.sessions].map((s) => s.close()));
  }

  private onRequest(req: IncomingMessage, res: ServerResponse): void {
    const session = this.sessionOf.get(req.socket as Socket)!;
    forward(session.ctx, req, res).catch((err: unknown) => {
      this.opts.log.warn("egress: forwarding failed", { err });
      res.destroy();
    });
  }

  private onConnect(req: IncomingMessage, socket: Socket, head: Buffer): void {
    const session = this.sessionOf.get(socket)!;
    tunnel(session.ctx, req, socket, head).catch((err: unknown) => {
      this.opts.log.warn("egress: tunnelling failed", { err });
      socket.destroy();
    });
  }
}

class Session implements EgressSession {
  /** Every connection accepted, answered over the cap or not: closing the session ends them all. */
  private readonly sockets = new Set<Socket>();
  private admitted = 0;
  private closing: Promise<void> | null = null;

  constructor(
    readonly socketPath: string,
    private readonly server: Server,
    readonly ctx: RequestContext,
    private readonly onRefused: (refusal: SessionRefusal) => void,
    private readonly onClosed: () => void,
  ) {}

  get connections(): number {
    return this.admitted;
  }

  /** Takes a new client connection, or answers it 503 when the session holds its cap already. */
  admit(socket: Socket): boolean {
    this.sockets.add(socket);
    socket.once("close", () => this.sockets.delete(socket));
    const cap = this.ctx.limits.maxConnections;
    if (this.admitted >= cap) {
      socket.on("error", () => socket.destroy());
      const reason = `more than ${cap} connections at once`;
      try {
        this.onRefused({ rule: "connection-cap", reason });
      } catch (err) {
        this.ctx.log.warn("egress: the refusal callback threw", { err });
      }
      rawAnswer(socket, 503, `egress refused: ${reason}`);
      return false;
    }
    this.admitted++;
    socket.once("close", () => this.admitted--);
    return true;
  }

  close(): Promise<void> {
    this.closing ??= new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      for (const socket of this.sockets) socket.destroy();
    }).finally(this.onClosed);
    return this.closing;
  }
}
