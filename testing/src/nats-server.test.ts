import { afterEach, describe, expect, it } from "vitest";
import { serverAtLeast, startNatsServer } from "./nats-server";

describe("the test nats-server launcher", () => {
  const before = process.env.NATS_SERVER_BIN;
  afterEach(() => {
    if (before === undefined) delete process.env.NATS_SERVER_BIN;
    else process.env.NATS_SERVER_BIN = before;
  });

  it("starts the binary NATS_SERVER_BIN names, and says which one it could not start", async () => {
    process.env.NATS_SERVER_BIN = "/nonexistent/nats-server-of-this-test";
    await expect(startNatsServer()).rejects.toThrow("cannot start /nonexistent/nats-server-of-this-test");
  });

  it("reports the started server's version", async () => {
    const server = await startNatsServer();
    try {
      expect(server.version).toMatch(/^v?\d+\.\d+\.\d+/);
      expect(serverAtLeast(server.version, "2.9.0")).toBe(true);
    } finally {
      await server.stop();
    }
  });
});
