/**
 * The sandbox runner as a service of its own (its own container, holding no credentials): runs
 * the code steps of the executors that connect to its Unix socket, WF_SANDBOX_SOCKET, with
 * `createCodeRunner({ socket })`. Run directories go under WF_CODE_TMP_DIR (default: the
 * temporary directory). Its ops listener (WF_OPS_PORT) is ready once the socket listens.
 */
import { lstat, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { resolve } from "node:path";
import { makeCodeRoot } from "./code/code-root";
import { loadConfig } from "@wf/shared/config";
import { createLogger } from "@wf/shared/log";
import { localSource, markStopping, openOps } from "@wf/shared/ops";
import { describeIsolation } from "./code/describe-isolation";
import { Sandbox, serveConnection } from "./code/index";
import { sandboxSettings } from "./code/sandbox-settings";
import { EgressProxy, operatorPolicy } from "./egress/index";

const socketPath = process.env.WF_SANDBOX_SOCKET;
if (!socketPath) {
  process.stderr.write("[wf sandbox] cannot start: WF_SANDBOX_SOCKET (the Unix socket to listen on) is not set\n");
  process.exit(1);
}
// Also removes the roots of sandbox runners that were killed before they could.
const tmpRoot = await makeCodeRoot(resolve(process.env.WF_CODE_TMP_DIR ?? tmpdir()), "wf-sandbox-");
const config = loadConfig();
const ops = await openOps(config, "sandbox").catch((err: unknown) => {
  process.stderr.write(`[wf sandbox] cannot start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
const settings = sandboxSettings(config);
const egress = new EgressProxy({
  policy: operatorPolicy(config),
  log: createLogger(config.LOG_LEVEL, { component: "egress" }),
});
const sandbox = await Sandbox.start({ tmpRoot, ...settings, egress });
// A socket left by a runner that died would make listen() fail with EADDRINUSE.
if ((await lstat(socketPath).catch(() => undefined))?.isSocket()) await rm(socketPath);
const server = createServer((socket) => serveConnection(socket, sandbox));
await new Promise<void>((ready, fail) => server.once("error", fail).listen(socketPath, ready));
process.stderr.write(`[wf sandbox] ready on ${socketPath}; ${describeIsolation(sandbox.isolation)}\n`);
ops.attach([localSource({ metrics: [], processMetrics: true })]);

let stopping = false;
const stop = (signal: string): void => {
  if (stopping) process.exit(1);
  stopping = true;
  process.stderr.write(`[wf sandbox] ${signal}: stopping\n`);
  server.close();
  void Promise.all([sandbox.close(), egress.close()])
    .then(() => rm(tmpRoot, { recursive: true, force: true }))
    .finally(() => process.exit(0));
};
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, markStopping);
process.on("SIGINT", () => stop("SIGINT"));
process.on("SIGTERM", () => stop("SIGTERM"));
