import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { egressFetch, EgressRefusedError, tooLargeAnswer, type EgressPolicy } from "../egress";
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

/**
 * The MCP connections of one execution run: one client per distinct server (its URL and rendered
 * headers, or its command), opened on first use, shared by every agent step of the run, and
 * closed with the run. Stdio servers are started by `stdio` in the code steps' sandbox, as the
 * execution's owner's, with a minimal environment: nothing of the service's own configuration
 * reaches them.
 */
export class McpPool {
  private readonly connections = new Map<string, Promise<Connection>>();
  private closed = false;

  /**
   * `stdio` null: stdio servers are refused (WF_MCP_STDIO=0). `egress`: the operator's policy,
   * which every connection to a `url:` server passes (resolved once, connected to a checked
   * address), so a workflow cannot make the executor reach loopback or the private network.
   * `owner`: the execution's owner, whose zygote starts its stdio servers.
   */
  constructor(private readonly opts: { stdio: SandboxedStdio | null; egress: EgressPolicy; owner: string }) {}

  async tools(server: McpServerTarget, signal: AbortSignal): Promise<McpTool[]> {
    const connection = await this.connection(server, signal);
    const { client } = connection;
    const tools: McpTool[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor }, { signal }).catch((err: unknown) => {
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
      connection = await this.connection(server, signal);
      const result = await connection.client.callTool({ name: tool, arguments: args }, undefined, { signal });
      return { text: resultText(result), isError: result.isError === true };
    } catch (err) {
      if (signal.aborted) throw signal.reason;
      return { text: `tool ${tool} failed: ${connection?.dropped ?? causeText(err)}`, isError: true };
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const connections = [...this.connections.values()];
    this.connections.clear();
    // Bounded: a server that does not answer must not hold the executor's slot.
    await Promise.all(
      connections.map((c) => Promise.race([c.then(end).catch(() => undefined), delay(CLOSE_TIMEOUT_MS)])),
    );
  }

  private connection(server: McpServerTarget, signal: AbortSignal): Promise<Connection> {
    if (this.closed) throw new Error("the run's MCP connections are closed");
    const key = JSON.stringify([server.url ?? null, server.headers ?? null, server.command ?? null]);
    let connection = this.connections.get(key);
    if (!connection) {
      connection = this.connect(server, signal, () => this.connections.delete(key));
      this.connections.set(key, connection);
      // A failed connection is not kept: the next attempt of the step tries again.
      connection.catch(() => this.connections.delete(key));
    }
    return connection;
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
