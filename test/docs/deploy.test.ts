import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";

const compose = parse(await readFile(new URL("../../docker-compose.yml", import.meta.url), "utf8"), { merge: true }) as {
  services: Record<string, { networks?: string[]; read_only?: boolean; cap_drop?: string[]; environment?: Record<string, string>; command?: string[] }>;
};

describe("docker-compose.yml", () => {
  it("runs every service on its own, beside NATS and MongoDB", () => {
    expect(Object.keys(compose.services).sort()).toEqual(
      ["approvals", "edge", "executor", "mongodb", "nats", "sandbox", "scheduler"].sort(),
    );
  });

  it("keeps the sandbox away from credentials and privileges", () => {
    const sandbox = compose.services.sandbox!;
    expect(sandbox.read_only).toBe(true);
    expect(sandbox.cap_drop).toEqual(["ALL"]);
    expect(sandbox.networks).toEqual(["egress"]);
    expect(Object.keys(sandbox.environment ?? {})).toEqual(["WF_SANDBOX_SOCKET"]);
    for (const [name, svc] of Object.entries(compose.services)) {
      if (name === "sandbox") continue;
      expect(svc.networks ?? [], name).not.toContain("egress");
    }
  });

  it("points each service's command at an entry that exists", async () => {
    for (const [name, svc] of Object.entries(compose.services)) {
      const entry = svc.command?.find((part) => part.endsWith(".ts"));
      if (!entry) continue;
      await expect(readFile(new URL(`../../${entry}`, import.meta.url)), name).resolves.toBeDefined();
    }
  });
});
