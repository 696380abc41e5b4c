import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";

export interface ToolCallSeen {
  tool: string;
  args: Record<string, unknown>;
  /** The Authorization header of the request that carried the call. */
  authorization: string | undefined;
  session: string | undefined;
}

/**
 * A real MCP server over streamable HTTP (the SDK's own server), one session per client, with a
 * CRM's tools: `lookup_ticket` answers, `escalate` records, `crm_down` always fails. It records
 * every call with its arguments and headers, and the sessions opened and ended.
 */
export class McpHttpTestServer {
  readonly calls: ToolCallSeen[] = [];
  /** Every HTTP request, whatever it carried. */
  requests = 0;
  readonly sessionsOpened: string[] = [];
  readonly sessionsClosed: string[] = [];
  /** The most sessions open at once (opened and not yet ended). */
  mostOpen = 0;
  private readonly transports = new Map<string, StreamableHTTPServerTransport>();

  private constructor(
    private readonly server: Server,
    private readonly host: string,
  ) {}

  /** `host`: any loopback address (127.0.0.3 is one the tests' egress allowance leaves refused). */
  static async start(host = "127.0.0.1"): Promise<McpHttpTestServer> {
    let self: McpHttpTestServer | null = null;
    const server = createServer((req, res) => void self!.handle(req, res));
    self = new McpHttpTestServer(server, host);
    await new Promise<void>((resolve) => server.listen(0, host, resolve));
    return self;
  }

  get url(): string {
    return `http://${this.host}:${(this.server.address() as AddressInfo).port}/mcp`;
  }

  async close(): Promise<void> {
    await Promise.all([...this.transports.values()].map((t) => t.close()));
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    this.requests++;
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body: unknown = chunks.length ? JSON.parse(Buffer.concat(chunks).toString("utf8")) : undefined;
    const sessionId = req.headers["mcp-session-id"];
    let transport = typeof sessionId === "string" ? this.transports.get(sessionId) : undefined;
    if (!transport) {
      if (req.method !== "POST" || typeof sessionId === "string") {
        res.writeHead(404).end();
        return;
      }
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          this.transports.set(id, created);
          this.sessionsOpened.push(id);
          this.mostOpen = Math.max(this.mostOpen, this.sessionsOpened.length - this.sessionsClosed.length);
        },
        onsessionclosed: (id) => {
          this.transports.delete(id);
          this.sessionsClosed.push(id);
        },
      });
      await this.tools().connect(created);
      transport = created;
    }
    await transport.handleRequest(req, res, body);
  }

  private tools(): McpServer {
    const mcp = new McpServer({ name: "crm", version: "1.0.0" });
    const seen = (
      tool: string,
      args: Record<string, unknown>,
      extra: { requestInfo?: { headers: Record<string, string | string[] | undefined> }; sessionId?: string },
    ) => {
      const auth = extra.requestInfo?.headers.authorization;
      this.calls.push({ tool, args, authorization: Array.isArray(auth) ? auth[0] : auth, session: extra.sessionId });
    };
    mcp.registerTool(
      "lookup_ticket",
      { description: "Finds a ticket by id", inputSchema: { id: z.number().int() } },
      async (args, extra) => {
        seen("lookup_ticket", args, extra);
        return {
          content: [{ type: "text", text: JSON.stringify({ id: args.id, priority: args.id % 2 ? "high" : "low" }) }],
        };
      },
    );
    mcp.registerTool(
      "escalate",
      { description: "Escalates a ticket to a team", inputSchema: { id: z.number().int(), team: z.string() } },
      async (args, extra) => {
        seen("escalate", args, extra);
        return { content: [{ type: "text", text: `ticket ${args.id} escalated to ${args.team}` }] };
      },
    );
    // Past what the executor takes of one MCP answer (MCP_MAX_RESPONSE_BYTES, 16 MiB).
    mcp.registerTool("export_all", { description: "Every record, 17 MiB", inputSchema: {} }, async (args, extra) => {
      seen("export_all", args, extra);
      return { content: [{ type: "text", text: "r".repeat(17 * 1024 * 1024) }] };
    });
    mcp.registerTool("crm_down", { description: "Always fails", inputSchema: {} }, async (args, extra) => {
      seen("crm_down", args, extra);
      throw new Error("the CRM is down for maintenance");
    });
    return mcp;
  }
}
