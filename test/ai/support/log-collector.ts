import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { SIDE_EFFECTS_HOST } from "../../support/egress-allowance";

export type LogEntry = Record<string, unknown>;

/**
 * Where a stdio MCP server under test reports what it sees: a POST of one JSON entry per request,
 * on a loopback address of the host that the sandboxed server reaches through its egress proxy
 * (the test's allowance), while its file system writes stay inside. `onEntry` runs before the
 * answer, so while the server waits for it, the test can look at the machine as it left it.
 */
export class LogCollector {
  readonly entries: LogEntry[] = [];

  private constructor(private readonly server: Server) {}

  static async start(onEntry: (entry: LogEntry) => void = () => undefined): Promise<LogCollector> {
    let self: LogCollector | null = null;
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const entry = JSON.parse(Buffer.concat(chunks).toString("utf8")) as LogEntry;
        self!.entries.push(entry);
        onEntry(entry);
        res.writeHead(204).end();
      });
    });
    self = new LogCollector(server);
    await new Promise<void>((resolve) => server.listen(0, SIDE_EFFECTS_HOST, resolve));
    return self;
  }

  get url(): string {
    return `http://${SIDE_EFFECTS_HOST}:${(this.server.address() as AddressInfo).port}/log`;
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
