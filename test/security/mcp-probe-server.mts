/**
 * A real MCP server over stdio (the SDK's own) that an agent's `command:` starts, with one tool,
 * `probe`, which tries from inside the server what the escape corpus tries from code steps and
 * answers what it saw (.mts: in the sandbox, no package.json above it says "module").
 */
import { closeSync, existsSync, openSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { get } from "node:http";
import { connect } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

/** "ok: <first bytes>", or the error's code. */
function read(path: string): string {
  try {
    return `ok: ${readFileSync(path, "utf8").slice(0, 40)}`;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code ?? String(err);
  }
}

function attempt(action: () => unknown): string {
  try {
    action();
    return "ok";
  } catch (err) {
    return (err as NodeJS.ErrnoException).code ?? String(err);
  }
}

/** "connected", or the error's code, within a second. */
function dial(target: { port: number; host?: string } | { path: string }): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(target as never);
    const done = (what: string): void => {
      socket.destroy();
      resolve(what);
    };
    socket.setTimeout(1000, () => done("timeout"));
    socket.once("connect", () => done("connected"));
    socket.once("error", (err: NodeJS.ErrnoException) => done(err.code ?? String(err)));
  });
}

/** A GET of `url` through the proxy HTTP_PROXY names, as any HTTP client would send it: the status, or the error. */
function throughProxy(url: string): Promise<string> {
  const proxy = new URL(process.env.HTTP_PROXY ?? "http://proxy.invalid");
  return new Promise((resolve) => {
    const req = get({ host: proxy.hostname, port: proxy.port, path: url, timeout: 5000 }, (res) => {
      res.resume();
      resolve(`HTTP ${res.statusCode}`);
    });
    req.on("timeout", () => req.destroy(new Error("timeout")));
    req.on("error", (err: NodeJS.ErrnoException) => resolve(err.code ?? String(err)));
  });
}

const mcp = new McpServer({ name: "probe", version: "1.0.0" });
mcp.registerTool(
  "probe",
  {
    description: "Reports what this server can reach",
    inputSchema: {
      files: z.array(z.string()),
      pids: z.array(z.number()),
      ports: z.array(z.number()),
      sockets: z.array(z.string()),
      writes: z.array(z.string()),
      edge: z.string(),
    },
  },
  async (args) => {
    const seen = {
      uid: process.getuid?.(),
      pid: process.pid,
      procPids: readdirSync("/proc")
        .filter((e) => /^\d+$/.test(e))
        .map(Number),
      root: readdirSync("/").sort(),
      files: Object.fromEntries(args.files.map((f) => [f, read(f)])),
      environs: Object.fromEntries(args.pids.map((p) => [p, read(`/proc/${p}/environ`)])),
      signals: Object.fromEntries(args.pids.map((p) => [p, attempt(() => process.kill(p, 0))])),
      tcp: Object.fromEntries(
        await Promise.all(args.ports.map(async (port) => [port, await dial({ port, host: "127.0.0.1" })] as const)),
      ),
      unix: Object.fromEntries(
        await Promise.all(args.sockets.map(async (path) => [path, await dial({ path })] as const)),
      ),
      writes: Object.fromEntries(
        args.writes.map((w) => [w, attempt(() => writeFileSync(w, "written by the MCP server"))]),
      ),
      tty: attempt(() => closeSync(openSync("/dev/tty", "r+"))),
      sys: existsSync("/sys/fs/cgroup"),
      edgeThroughProxy: await throughProxy(args.edge),
    };
    return { content: [{ type: "text", text: JSON.stringify(seen) }] };
  },
);
await mcp.connect(new StdioServerTransport());
