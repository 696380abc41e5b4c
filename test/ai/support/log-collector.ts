import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export type LogEntry = Record<string, unknown>;

/**
 * Where a stdio MCP server under test reports what it sees: a POST of one JSON entry per request,
 * on 127.0.0.1, which a sandboxed server still reaches (the sandbox keeps the host's network)
 * while its file system writes stay inside. `onEntry` runs before the answer, so while the server
 * waits for it, the test can look at the machine as the server left it.
 */
export class LogCollector {
  readonly entries: LogEntry[] = [];

  private constructor(private readonly server: Server) {}

  static async start(onEntry: (entry: LogEntry) => void = () => undefined): Promise<LogCollector> {
    let self: LogCollector | null = null;
    const server = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const entry = JSON.parse(Buffer.concat(chunks).toString("utf8")) as LogEntry;
      self!.entries.push(entry);
      onEntry(entry);
      res.writeHead(204).end();
    });
    self = new LogCollector(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return self;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/log`;
  }

  /** The entries one server reported (its first argument names it). */
  of(name: string): LogEntry[] {
    return this.entries.filter((e) => e.server === name);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}
