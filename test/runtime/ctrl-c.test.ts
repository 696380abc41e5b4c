import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { natsServerBin, processesWithArg, waitFor } from "@wf/testing";
import { ENTRIES, startServiceProcess } from "../support/processes";

describe("npm start stopped by Ctrl-C in its terminal", () => {
  // Once ready, and while it still starts: its nats-server is up, its executor, edge and the rest not yet.
  for (const [when, line] of [
    ["once it is ready", "[wf] ready"],
    ["while it starts", "started nats-server as a child process"],
  ] as const) {
    it(`stops the service ${when}, then the nats-server it started, though the signal reached the whole process group`, async () => {
      const dataDir = await mkdtemp(join(tmpdir(), "wf-ctrl-c-"));
      // The nats-server the service starts for its data directory runs `nats-server -c <this>`.
      const serverConfig = join(dataDir, "nats-server.conf");
      onTestFinished(async () => {
        for (const pid of processesWithArg(serverConfig)) process.kill(pid, "SIGKILL");
        await rm(dataDir, { recursive: true, force: true, maxRetries: 2 });
      });
      const service = await startServiceProcess(
        ENTRIES.allInOne,
        { WF_DATA_DIR: dataDir, PORT: "0", NATS_SERVER_BIN: natsServerBin() },
        [line],
        { ownGroup: true },
      );
      onTestFinished(() => service.kill());
      expect(processesWithArg(serverConfig)).toHaveLength(1);

      // SIGKILLed after 10 s if it has not ended by then: a service that hangs ends with no code.
      expect(await service.interrupt(), service.output()).toEqual({ code: 0, signal: null });
      expect(service.output()).toContain("SIGINT: stopping");
      await waitFor(() => processesWithArg(serverConfig).length === 0, {
        what: "the nats-server the service started to end with it",
      });
    }, 120_000);
  }
});
