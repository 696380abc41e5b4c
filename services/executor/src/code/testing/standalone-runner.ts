import { spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { waitFor } from "@wf/testing";

const SANDBOX_MAIN = fileURLToPath(new URL("../../sandbox-main.ts", import.meta.url));

/** A standalone runner on its own socket in `dir`, started under `prefix` (a command that it runs in) with `env`. */
export async function standaloneRunner(
  dir: string,
  name: string,
  prefix: string[] = [],
  env: Record<string, string> = {},
): Promise<{ socket: string; stop(): Promise<void> }> {
  const socket = join(dir, `${name}.sock`);
  const [file, ...args] = [...prefix, process.execPath, "--import", "tsx", "--no-node-snapshot", SANDBOX_MAIN];
  const proc = spawn(file!, args, {
    env: { PATH: process.env.PATH ?? "", WF_SANDBOX_SOCKET: socket, WF_OPS_PORT: "off", ...env },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let log = "";
  let stopping = false;
  proc.stderr?.setEncoding("utf8").on("data", (text: string) => (log += text));
  const exited = new Promise<void>((resolve) =>
    proc.once("exit", (code, signal) => {
      // What it said before it went: a runner that dies under a test is otherwise only a closed connection.
      if (!stopping) console.error(`the standalone runner ${name} exited (${code ?? signal}) unasked:\n${log}`);
      resolve();
    }),
  );
  await waitFor(() => log.includes("ready on"), { what: `the sandbox runner to listen (${log})`, timeoutMs: 20_000 });
  return {
    socket,
    async stop() {
      stopping = true;
      proc.kill("SIGTERM");
      await exited;
    },
  };
}
