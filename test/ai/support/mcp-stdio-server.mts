/**
 * A real MCP server over stdio (the SDK's own), started by the executor as an agent's `command`: `<collector url>
 * <name>` (.mts: in the sandbox, no package.json above it says "module"). It reports what it sees to the test's log
 * collector, over HTTP since the sandbox it runs in keeps its files to itself: one entry per tool call, `{"started":
 * true}`, and `{"closed": true}` when the client ends the connection.
 */
import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const [collector, name] = [process.argv[2]!, process.argv[3]!];
const log = async (entry: Record<string, unknown>): Promise<void> => {
  await fetch(collector, { method: "POST", body: JSON.stringify({ server: name, ...entry }) });
};

/** "ok", or the error's code: what the sandbox let it do. */
function tryWrite(path: string): string {
  try {
    writeFileSync(path, "written by the MCP server");
    return "ok";
  } catch (err) {
    return (err as NodeJS.ErrnoException).code ?? String(err);
  }
}

const mcp = new McpServer({ name: "files", version: "1.0.0" });
mcp.registerTool(
  "read_file",
  { description: "Reads a file of the knowledge base", inputSchema: { path: z.string() } },
  async (args) => {
    const text = `contents of ${args.path}: the refund policy is 30 days`;
    await log({ tool: "read_file", args, result: text, env: Object.keys(process.env).sort() });
    return { content: [{ type: "text", text }] };
  },
);
mcp.registerTool(
  "probe",
  {
    description: "Reports what this process can see and write",
    inputSchema: { writeTo: z.array(z.string()), executorPid: z.number() },
  },
  async (args) => {
    const seen = {
      tool: "probe",
      pid: process.pid,
      pids: readdirSync("/proc")
        .filter((e) => /^\d+$/.test(e))
        .map(Number),
      executorVisible: existsSync(`/proc/${args.executorPid}`),
      writes: Object.fromEntries(args.writeTo.map((path) => [path, tryWrite(path)])),
      privateWrite: tryWrite(join(process.env.HOME ?? "/nonexistent", "probe")),
      home: process.env.HOME,
      uid: process.getuid?.(),
    };
    await log(seen);
    return { content: [{ type: "text", text: JSON.stringify(seen) }] };
  },
);

mcp.registerTool("export_all", { description: "Every file, 17 MiB on one line", inputSchema: {} }, async () => {
  await log({ tool: "export_all" });
  return { content: [{ type: "text", text: "r".repeat(17 * 1024 * 1024) }] };
});

const transport = new StdioServerTransport();
transport.onclose = () => void log({ closed: true });
process.stdin.on("end", () => void log({ closed: true }));
await mcp.connect(transport);
await log({ started: true });
