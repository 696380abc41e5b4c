import { spawn } from "node:child_process";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it, onTestFinished } from "vitest";
import { natsServerBin, waitFor } from "@wf/testing";
import { entryArgs } from "../support/built-entries";
import { ENTRIES } from "../support/processes";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** Pids of the processes whose command line names `text`. */
async function processesNaming(text: string): Promise<number[]> {
  const pids: number[] = [];
  for (const name of await readdir("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const cmdline = await readFile(`/proc/${name}/cmdline`, "utf8").catch(() => "");
    if (cmdline.includes(text)) pids.push(Number(name));
  }
  return pids;
}

describe("npm start stopped by Ctrl-C in its terminal", () => {
  it("stops the service, then the nats-server it started, though the signal reached the whole process group", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "wf-ctrl-c-"));
    onTestFinished(async () => {
      for (const pid of await processesNaming(dataDir)) process.kill(pid, "SIGKILL");
      await rm(dataDir, { recursive: true, force: true, maxRetries: 2 });
    });
    // A process group of its own, as a terminal's foreground job is: Ctrl-C signals every process in it.
    const proc = spawn(process.execPath, entryArgs(ROOT, ENTRIES.allInOne), {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? "/tmp",
        WF_DATA_DIR: dataDir,
        PORT: "0",
        WF_OPS_PORT: "0",
        NATS_SERVER_BIN: natsServerBin(),
      },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    onTestFinished(() => {
      if (proc.exitCode === null && proc.signalCode === null) process.kill(-proc.pid!, "SIGKILL");
    });
    let out = "";
    proc.stdout.on("data", (b: Buffer) => (out += b.toString()));
    proc.stderr.on("data", (b: Buffer) => (out += b.toString()));
    const exited = new Promise<number | null>((resolve) => proc.once("exit", (code) => resolve(code)));
    await waitFor(() => out.includes("[wf] ready"), { timeoutMs: 60_000, what: "the service to be ready" });
    expect(await processesNaming(join(dataDir, "nats-server.conf"))).toHaveLength(1);

    process.kill(-proc.pid!, "SIGINT");
    const code = await Promise.race([exited, new Promise((r) => setTimeout(() => r("still running"), 30_000))]);
    expect(code, out).toBe(0);
    expect(out).toContain("SIGINT: stopping");
    await waitFor(async () => (await processesNaming(join(dataDir, "nats-server.conf"))).length === 0, {
      what: "the nats-server the service started to end with it",
    });
  }, 120_000);
});
