import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../config/env";
import { ConfigError } from "../errors/index";
import { openOps } from "./open-ops";

const config = (WF_OPS_PORT: string) => loadConfig({ WF_OPS_PORT, LOG_LEVEL: "silent" });

describe("openOps", () => {
  it("listens on a free port with WF_OPS_PORT=0, and not at all with off", async () => {
    const ops = await openOps(config("0"), "test");
    try {
      expect(ops.server?.port).toBeGreaterThan(0);
      expect((await fetch(`http://127.0.0.1:${ops.server!.port}/healthz`)).status).toBe(200);
    } finally {
      await ops.close();
    }
    expect(config("off").WF_OPS_PORT).toBeNull();
    expect((await openOps(config("off"), "test")).server).toBeNull();
    expect(() => config("70000")).toThrow(/WF_OPS_PORT/);
  });

  it("stops start-up on a port that is taken, naming the variable", async () => {
    const taken = createServer();
    await new Promise<void>((r) => taken.listen(0, "127.0.0.1", r));
    try {
      const port = String((taken.address() as { port: number }).port);
      const err = await openOps(config(port), "test").catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as Error).message).toMatch(new RegExp(`127\\.0\\.0\\.1:${port} \\(EADDRINUSE\\).*WF_OPS_PORT`));
    } finally {
      await new Promise((r) => taken.close(r));
    }
  });
});
