import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { egressFetch, EgressRefusedError, tooLargeAnswer, type EgressPolicy } from "../egress";
import type { McpPlace, McpPlaces } from "./mcp-places";
import type { SandboxedStdio } from "./sandboxed-stdio";
import { MCP_STDIO_MAX_MS } from "./sandboxed-stdio";

/** An agent's MCP server with its templates rendered (headers may carry the owner's secrets). */
export interface McpServerTarget {
  name: string;
  url?: string;
  headers?: Record<string, string>;
  command?: string[];
  /** A stdio server's lifetime: its agent step's `timeout`, when it has one. */
  timeoutMs?: number;
}

export interface McpTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

export interface McpToolResult {
  /** What the model is given: the result's text (other content summarised). */
  text: string;
  isError: boolean;
}

/**
 * A server we could not reach or that broke the protocol: the step fails (a retry may help). Or
 * its URL is refused by the egress policy: then a retry cannot help.
 */
export class McpConnectError extends Error {
  readonly retryable: boolean;

  /** `retryable` false: a refusal by this service's configuration, which another attempt meets again. */
  constructor(server: McpServerTarget, cause: unknown, retryable = !(cause instanceof EgressRefusedError)) {
    super(
      cause instanceof EgressRefusedError
        ? `MCP server \`${server.name}\`: ${server.url} is refused: ${cause.message}`
        : `MCP server \`${server.name}\` (${server.url ?? server.command?.[0] ?? "?"}): cannot connect: ${causeText(cause)}`,
    );
    this.name = "McpConnectError";
    this.retryable = retryable;
  }
}

const CLIENT_INFO = { name: "wf-executor", version: "0.1.0" };
const CLOSE_TIMEOUT_MS = 5_000;
/**
 * The most of one answer an MCP server may send (a tools list, a tool's result; over HTTP, or a line over stdio): parsed
 * on the executor's thread, which every owner's runs share. A tools list of 200,000 tools (110 MB) held that thread 7 s.
 */
export const MCP_MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

interface Connection {
  client: Client;
  transport: Transport;
  /** What the server's launch left behind (a stdio server's private directory). */
  release(): Promise<void>;
  /** Why the connection was dropped under its calls (an answer too large), which they then fail with. */
  dropped: string | null;
}

/** A connection of the pool, as its owner's places (McpPlaces) see it. */
class Entry implements McpPlace {
  /** Uses under way or waiting for the connection: counted before any wait, so an entry in use is never evicted. */
  uses = 0;
  connection!: Promise<Connection>;

  constructor(readonly evict: () => void) {}

  get busy(): boolean {
    return this.uses > 0;
  }
}

/**
 * The MCP connections of one execution run: one client per distinct server (its URL and rendered
 * headers, or its command), opened on first use, shared by every agent step of the run, and
 * closed with the run, or before when its owner needs the room (`places`: each owner's bound on
 * an executor, past which its least recently used idle connection is closed). Stdio servers are
 * started by `stdio` in the code steps' sandbox, as the execution's owner's, with a minimal
 * environment: nothing of the service's own configuration reaches them.
 */
export class McpPool {
  private readonly entries = new Map<string, Entry>();
  private closed = false;

  /**
   * `stdio` null: stdio servers are refused (WF_MCP_STDIO=0). `egress`: the operator's policy,
   * which every connection to a `url:` server passes (resolved once, connected to a checked
   * address), so a workflow cannot make the executor reach loopback or the private network.
   * `owner`: the execution's owner, whose zygote starts its stdio servers and whose places
   * (its plan's share: PLAN_MCP_CONNECTIONS, at most WF_MCP_CONNECTIONS) the connections take.
   */
  constructor(
    private readonly opts: { stdio: SandboxedStdio | null; egress: EgressPolicy; owner: string; places: McpPlaces },
  ) {}

  tools(server: McpServerTarget, signal: AbortSignal): Promise<McpTool[]> {
    return this.using(server, signal, async (connection) => {
      const tools: McpTool[] = [];
      let cursor: string | undefined;
      do {
        const page = await connection.client
          .listTools(cursor === undefined ? {} : { cursor }, { signal })
          .catch((err: unknown) => {
            throw new McpConnectError(server, connection.dropped === null ? err : new Error(connection.dropped));
          });
        for (const t of page.tools)
          tools.push({
            name: t.name,
            description: t.description ?? "",
            inputSchema: t.inputSchema as Record<string, unknown>,
          });
        cursor = page.nextCursor;
      } while (cursor);
      return tools;
    });
  }

  /** A failing tool is an error result for the model, never an exception. */
  async call(
    server: McpServerTarget,
    tool: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<McpToolResult> {
    let connection: Connection | undefined;
    try {
      return await this.using(server, signal, async (c) => {
        connection = c;
        const result = await c.client.callTool({ name: tool, arguments: args }, undefined, { signal });
        return { text: resultText(result), isError: result.isError === true };
      });
    } catch (err) {
      if (signal.aborted) throw signal.reason;
      return { text: `tool ${tool} failed: ${connection?.dropped ?? causeText(err)}`, isError: true };
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const entries = [...this.entries.values()];
    this.entries.clear();
    for (const entry of entries) this.opts.places.give(this.opts.owner, entry);
    // Bounded: a server that does not answer must not hold the executor's slot.
    await Promise.all(
      entries.map((e) => Promise.race([e.connection.then(end).catch(() => undefined), delay(CLOSE_TIMEOUT_MS)])),
    );
  }

  /** Runs `work` on the server's connection, which counts as busy meanwhile and is then its owner's most recent. */
  private async using<T>(
    server: McpServerTarget,
    signal: AbortSignal,
    work: (connection: Connection) => Promise<T>,
  ): Promise<T> {
    const entry = this.entry(server, signal);
    entry.uses++;
    try {
      const connection = await entry.connection;
      this.opts.places.touch(this.opts.owner, entry);
      return await work(connection);
    } finally {
      if (--entry.uses === 0) this.opts.places.idle(this.opts.owner);
    }
  }

  private entry(server: McpServerTarget, signal: AbortSignal): Entry {
    if (this.closed) throw new Error("the run's MCP connections are closed");
    const key = JSON.stringify([server.url ?? null, server.headers ?? null, server.command ?? null]);
    const held = this.entries.get(key);
    if (held) return held;
    const entry: Entry = new Entry(() => {
      this.forget(key, entry);
      void entry.connection.then(end).catch(() => undefined);
    });
    entry.connection = this.open(server, signal, entry, () => this.forget(key, entry));
    this.entries.set(key, entry);
    // A failed connection is not kept: the next attempt of the step tries again.
    entry.connection.catch(() => this.forget(key, entry));
    return entry;
  }

  /** Connects once the owner has a place for it (which may close the owner's least recently used idle connection). */
  private async open(
    server: McpServerTarget,
    signal: AbortSignal,
    entry: Entry,
    forget: () => void,
  ): Promise<Connection> {
    await this.opts.places.take(this.opts.owner, entry, signal);
    if (this.closed) {
      this.opts.places.give(this.opts.owner, entry);
      throw new Error("the run's MCP connections are closed");
    }
    return this.connect(server, signal, forget);
  }

  /** The connection is not used again, and its place is free. */
  private forget(key: string, entry: Entry): void {
    if (this.entries.get(key) === entry) this.entries.delete(key);
    this.opts.places.give(this.opts.owner, entry);
  }

  /** `forget`: the connection is dropped, and the next use connects again. */
  private async connect(server: McpServerTarget, signal: AbortSignal, forget: () => void): Promise<Connection> {
    let transport: Transport;
    let release = async (): Promise<void> => undefined;
    if (server.url !== undefined) {
      let url: URL;
      try {
        url = new URL(server.url);
      } catch {
        throw new McpConnectError(server, new Error("`url` is not a URL"));
      }
      const egress = egressFetch({ policy: this.opts.egress, maxResponseBytes: MCP_MAX_RESPONSE_BYTES });
      transport = new StreamableHTTPClientTransport(url, {
        requestInit: { headers: server.headers ?? {} },
        fetch: egress.fetch,
      });
      release = async () => egress.close();
    } else if (server.command?.length) {
      if (!this.opts.stdio)
        throw new McpConnectError(
          server,
          new Error("stdio MCP servers are disabled on this service (WF_MCP_STDIO=0)"),
          false,
        );
      const refusal = this.opts.stdio.refusal(server.command);
      if (refusal) throw new McpConnectError(server, new Error(refusal), false);
      transport = this.opts.stdio.transport(server.command, {
        owner: this.opts.owner,
        timeoutMs: server.timeoutMs ?? MCP_STDIO_MAX_MS,
        maxMessageBytes: MCP_MAX_RESPONSE_BYTES,
      });
    } else {
      throw new McpConnectError(server, new Error("neither `url` nor `command`"));
    }
    const client = new Client(CLIENT_INFO);
    try {
      await client.connect(transport, { signal });
    } catch (err) {
      await client.close().catch(() => undefined);
      await release().catch(() => undefined);
      if (signal.aborted) throw signal.reason;
      throw new McpConnectError(server, err);
    }
    const connection: Connection = { client, transport, release, dropped: null };
    // An event stream that failed is only reported (the SDK's request would wait for its timeout): an answer too
    // large drops the connection, which fails what waits on it.
    client.onerror = (err) => {
      const tooLarge = tooLargeAnswer(err);
      if (tooLarge === null || connection.dropped !== null) return;
      connection.dropped = `the MCP server's answer was not taken: ${tooLarge}`;
      forget();
      void end(connection).catch(() => undefined);
    };
    return connection;
  }
}

/**
 * An HTTP session is ended on the server too (DELETE), not just dropped; a stdio server is
 * stopped with everything it started.
 */
async function end({ client, transport, release }: Connection): Promise<void> {
  if (transport instanceof StreamableHTTPClientTransport) await transport.terminateSession().catch(() => undefined);
  try {
    await client.close();
  } finally {
    await release();
  }
}

/** Text blocks as they are; other content named, so the model knows it was there. */
function resultText(result: Awaited<ReturnType<Client["callTool"]>>): string {
  const content = Array.isArray(result.content)
    ? (result.content as {
        type: string;
        text?: string;
        mimeType?: string;
        resource?: { uri?: string; text?: string };
      }[])
    : [];
  const parts = content.map((c) => {
    if (c.type === "text") return c.text ?? "";
    if (c.type === "resource") return c.resource?.text ?? `[resource ${c.resource?.uri ?? ""}]`;
    return `[${c.type}${c.mimeType ? ` ${c.mimeType}` : ""}]`;
  });
  if (parts.length === 0 && result.structuredContent !== undefined) return JSON.stringify(result.structuredContent);
  return parts.join("\n");
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

function causeText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
