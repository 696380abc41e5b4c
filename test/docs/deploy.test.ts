import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { ADMIN_USER, passwordVariable, renderAuthConf, SERVICE_USERS } from "@wf/shared/nats";

const compose = parse(await readFile(new URL("../../docker-compose.yml", import.meta.url), "utf8"), { merge: true }) as {
  services: Record<string, { networks?: string[]; read_only?: boolean; cap_drop?: string[]; environment?: Record<string, string>; command?: string[] }>;
};

describe("docker-compose.yml", () => {
  it("runs every service on its own, beside NATS and MongoDB", () => {
    expect(Object.keys(compose.services).sort()).toEqual(["approvals", "edge", "executor", "mongodb", "nats", "sandbox", "scheduler"].sort());
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

  it("gives each service its own NATS user, whose password nats-server reads from the same variable", () => {
    const nats = compose.services.nats!;
    expect(Object.keys(nats.environment ?? {}).sort()).toEqual([...SERVICE_USERS, ADMIN_USER].map(passwordVariable).sort());
    for (const user of SERVICE_USERS) {
      const env = compose.services[user]!.environment ?? {};
      expect(env.NATS_USER, user).toBe(user);
      expect(env.NATS_PASSWORD, user).toMatch(new RegExp(`^\\$\\{${passwordVariable(user)}:\\?`));
    }
  });

  it("gives each server key to the services that use it, from a variable that must be set", () => {
    const keys = (name: string) =>
      Object.keys(compose.services[name]!.environment ?? {})
        .filter((k) => /^WF_.*_KEY$/.test(k))
        .sort();
    expect(keys("edge")).toEqual(["WF_URL_SIGNING_KEY", "WF_WEBHOOK_SECRET_KEY"]);
    expect(keys("executor")).toEqual(["WF_SECRETS_KEY"]);
    expect([keys("approvals"), keys("scheduler"), keys("sandbox")]).toEqual([[], [], []]);
    for (const [name, svc] of Object.entries(compose.services)) {
      for (const [k, v] of Object.entries(svc.environment ?? {})) if (/_KEY$|PASSWORD$/.test(k)) expect(v, `${name} ${k}`).toMatch(/^\$\{\w+:\?/);
    }
  });
});

describe("deploy/nats", () => {
  it("auth.conf is generated from the permissions of shared/src/nats/permissions.ts, and every server config includes it", async () => {
    expect(await readFile(new URL("../../deploy/nats/auth.conf", import.meta.url), "utf8")).toBe(renderAuthConf("wf"));
    for (const name of ["single", "cluster-1", "cluster-2", "cluster-3"]) {
      const conf = await readFile(new URL(`../../deploy/nats/${name}.conf`, import.meta.url), "utf8");
      expect(conf, name).toMatch(/^include \.\/auth\.conf$/m);
    }
  });
});
