import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PLAN_WORKFLOWS, verifyPassword } from "@wf/shared/auth";
import { newWorkflowRecord } from "@wf/shared/store";
import { openPlatform, type Platform } from "@wf/shared/runtime";
import type { NatsServerHandle } from "@wf/testing";
import { buildEdge } from "@wf/edge";
import { startNatsServer, testConfig } from "../support/runtime";
import { runCli, workflowFiles } from "./cli-process";

const files = await workflowFiles({
  hello: `
name: hello api
variables:
  who: { type: string, default: you }
steps:
  - name: greet
    type: transform
    output: "hello {{ vars.who }}"
`,
  hello2: `
name: hello api v2
steps:
  - { name: greet, type: transform, output: hi }
`,
  broken: `
name: broken
steps:
  - name: greet
    type: transfrom
`,
  nightly: `
name: nightly
steps:
  - { name: crunch, type: code, language: python, timeout: 3600, code: "print(1)" }
`,
  // Stored with its parse beside it, about as large: more than the one NATS message (1 MB) a stored workflow takes.
  huge: `name: huge\nsteps:\n  - { name: greet, type: transform, output: "${"x".repeat(600 * 1024)}" }\n`,
});

let server: NatsServerHandle;
let platform: Platform;
let edge: FastifyInstance;
let env: Record<string, string>;

beforeAll(async () => {
  server = await startNatsServer();
  const config = testConfig(server);
  platform = await openPlatform(config, "cli-admin-test");
  edge = await buildEdge(platform);
  env = { NATS_URL: server.url, WF_NAMESPACE: config.WF_NAMESPACE };
});
afterAll(async () => {
  await edge?.close();
  await platform?.close();
  await server?.stop();
});

async function wf(...args: string[]) {
  return runCli(args, env);
}

async function json<T = Record<string, unknown>>(...args: string[]): Promise<T> {
  const r = await wf(...args, "--json");
  expect(r.code, `wf ${args.join(" ")}\n${r.stderr}`).toBe(0);
  return JSON.parse(r.stdout) as T;
}

function api(key: string, url: string) {
  return edge.inject({ method: "GET", url, headers: { authorization: `Bearer ${key}` } });
}

describe("wf admin and wf workflow, end to end with the API", () => {
  it("creates a user and a key, imports and shares a workflow, and the API serves it until the key is revoked", async () => {
    const user = await json<{ id: string; email: string; plan: string; status: string }>(
      "admin",
      "user",
      "create",
      "--email",
      "Ops@Example.com",
      "--password",
      "correct horse",
      "--plan",
      "free",
    );
    expect(user).toEqual({
      id: expect.any(String),
      email: "ops@example.com",
      plan: "free",
      status: "active",
      createdAt: expect.any(Number),
      updatedAt: expect.any(Number),
    });
    const stored = (await platform.store.users.get(user.id))!.value;
    expect(stored.passwordHash).toMatch(/^scrypt\$/);
    expect(await verifyPassword("correct horse", stored.passwordHash)).toBe(true);

    const before = Date.now();
    const key = await json<{ id: string; key: string; scopes: string[]; expiresAt: number }>(
      "admin",
      "key",
      "create",
      "--user",
      user.id,
      "--scopes",
      "WORKFLOW_READ,EXECUTION_READ",
      "--name",
      "ci",
      "--expires-in",
      "10m",
    );
    expect(key.key).toMatch(new RegExp(`^wfk_${key.id}_[0-9a-f]{64}$`));
    expect(key.scopes).toEqual(["WORKFLOW_READ", "EXECUTION_READ"]);
    expect(key.expiresAt).toBeGreaterThanOrEqual(before + 600_000);
    expect(key.expiresAt).toBeLessThan(Date.now() + 600_000 + 5_000);

    const imported = await json<{ id: string; version: number }>("workflow", "import", files.hello, "--user", user.id);
    expect(imported.version).toBe(1);
    const listed = await api(key.key, "/api/v1/workflows");
    expect(listed.statusCode).toBe(200);
    expect(listed.json()).toMatchObject({
      items: [{ id: imported.id, name: "hello api", ownerId: user.id }],
      total: 1,
    });

    const updated = await json<{ id: string; version: number; name: string }>(
      "workflow",
      "import",
      files.hello2,
      "--user",
      user.id,
      "--id",
      imported.id,
    );
    expect(updated).toMatchObject({ id: imported.id, version: 2, name: "hello api v2" });
    expect((await api(key.key, `/api/v1/workflows/${imported.id}`)).json()).toMatchObject({
      version: 2,
      name: "hello api v2",
    });

    const friend = await json<{ id: string }>(
      "admin",
      "user",
      "create",
      "--email",
      "friend@example.com",
      "--password",
      "12345678",
      "--plan",
      "pro",
    );
    const friendKey = await json<{ key: string }>(
      "admin",
      "key",
      "create",
      "--user",
      friend.id,
      "--scopes",
      "WORKFLOW_READ",
    );
    expect((await api(friendKey.key, `/api/v1/workflows/${imported.id}`)).statusCode).toBe(404);
    const shared = await json("workflow", "share", "--id", imported.id, "--user", friend.id, "--role", "viewer");
    expect(shared).toEqual({ id: imported.id, sharedWith: { [friend.id]: "viewer" } });
    expect((await api(friendKey.key, `/api/v1/workflows/${imported.id}`)).statusCode).toBe(200);

    const revoked = await json<{ id: string; revokedAt: number }>("admin", "key", "revoke", "--id", key.id);
    expect(revoked).toEqual({ id: key.id, revokedAt: expect.any(Number) });
    expect((await api(key.key, "/api/v1/workflows")).statusCode).toBe(401);

    const audit = await json<{ reason: string; keyId: string | null; path: string }[]>(
      "admin",
      "audit",
      "--since",
      "10m",
    );
    expect(audit[0]).toMatchObject({ reason: "revoked", keyId: key.id, path: "/api/v1/workflows" });
  });

  it("exports a stored workflow's YAML as saved, the current version or an earlier one, and imports it back", async () => {
    const user = await json<{ id: string }>(
      "admin",
      "user",
      "create",
      "--email",
      "exporter@example.com",
      "--password",
      "12345678",
      "--plan",
      "pro",
    );
    const first = await json<{ id: string }>("workflow", "import", files.hello, "--user", user.id);
    await json("workflow", "import", files.hello2, "--user", user.id, "--id", first.id);
    const [hello, hello2] = await Promise.all([readFile(files.hello, "utf8"), readFile(files.hello2, "utf8")]);

    const current = await wf("workflow", "export", "--id", first.id);
    expect(current).toMatchObject({ code: 0, stdout: hello2 });
    expect((await wf("workflow", "export", "--id", first.id, "--version", "1")).stdout).toBe(hello);
    expect(await json("workflow", "export", "--id", first.id, "--version", "1")).toEqual({
      id: first.id,
      name: "hello api",
      version: 1,
      yaml: hello,
    });

    const out = join(await mkdtemp(join(tmpdir(), "wf-export-")), "hello.yaml");
    const written = await wf("workflow", "export", "--id", first.id, "--version", "1", "--out", out);
    expect(written).toMatchObject({ code: 0, stdout: "" });
    expect(written.stderr).toContain(`workflow ${first.id} version 1 written to ${out}`);
    expect(await readFile(out, "utf8")).toBe(hello);
    // What it wrote imports again, as a new workflow with the same text.
    const again = await json<{ id: string; name: string }>("workflow", "import", out, "--user", user.id);
    expect(again.name).toBe("hello api");
    expect((await wf("workflow", "export", "--id", again.id)).stdout).toBe(hello);

    const missing = await wf("workflow", "export", "--id", first.id, "--version", "7");
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`workflow ${first.id} has no version 7 (its versions: 1-2)`);
    expect((await wf("workflow", "export", "--id", "nope")).code).toBe(1);
    const bad = await wf("workflow", "export", "--id", first.id, "--version", "two");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--version two: use a version number");
  });

  it("plan and status changes take effect on the next request", async () => {
    const user = await json<{ id: string }>(
      "admin",
      "user",
      "create",
      "--email",
      "plans@example.com",
      "--password",
      "12345678",
      "--plan",
      "free",
    );
    const { key } = await json<{ key: string }>(
      "admin",
      "key",
      "create",
      "--user",
      user.id,
      "--scopes",
      "WORKFLOW_READ",
    );
    expect((await api(key, "/api/v1/workflows")).headers["x-ratelimit-limit"]).toBe("60");
    expect(await json("admin", "user", "update", "--id", user.id, "--plan", "team")).toMatchObject({
      id: user.id,
      plan: "team",
      status: "active",
    });
    expect((await api(key, "/api/v1/workflows")).headers["x-ratelimit-limit"]).toBe("1200");
    expect(await json("admin", "user", "update", "--id", user.id, "--status", "locked")).toMatchObject({
      status: "locked",
    });
    expect((await api(key, "/api/v1/workflows")).statusCode).toBe(403);
  });
});

describe("wf admin user update --egress-allow", () => {
  it("sets an account's egress list, checks its entries, and removes it", async () => {
    const user = await json<{ id: string }>(
      "admin",
      "user",
      "create",
      "--email",
      "egress@example.com",
      "--password",
      "12345678",
      "--plan",
      "pro",
    );
    expect(
      await json("admin", "user", "update", "--id", user.id, "--egress-allow", "api.github.com, *.example.com:443"),
    ).toMatchObject({
      egressAllow: ["api.github.com", "*.example.com:443"],
    });
    expect((await platform.store.users.get(user.id))?.value.egressAllow).toEqual([
      "api.github.com",
      "*.example.com:443",
    ]);
    const bad = await wf("admin", "user", "update", "--id", user.id, "--egress-allow", "http://x");
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/egressAllow\.0: "http:\/\/x": the port must be a number from 1 to 65535/);
    const cleared = await json("admin", "user", "update", "--id", user.id, "--egress-allow", "");
    expect(cleared).not.toHaveProperty("egressAllow");
    expect((await platform.store.users.get(user.id))?.value).not.toHaveProperty("egressAllow");
  });
});

describe("bad input: a clear message and a non-zero exit", () => {
  // Each case is its own CLI process and touches nothing the others read: they run side by side.
  it.concurrent.for<[string[], number, RegExp]>([
    [["admin", "user", "create", "--password", "12345678", "--plan", "free"], 2, /needs --email/],
    [
      ["admin", "user", "create", "--email", "a@b.c", "--password", "12345678", "--plan", "gold"],
      2,
      /--plan gold: use one of free, pro, team, enterprise/,
    ],
    [
      ["admin", "user", "create", "--email", "not-an-email", "--password", "12345678", "--plan", "free"],
      1,
      /email: must be an email address/,
    ],
    [
      ["admin", "user", "create", "--email", "short@example.com", "--password", "short", "--plan", "free"],
      1,
      /password: must have at least 8 characters/,
    ],
    [["admin", "user", "update", "--id", "nobody", "--plan", "pro"], 1, /no user with id nobody/],
    [["admin", "user", "update", "--id", "nobody"], 2, /needs --plan, --status or --egress-allow/],
    [
      ["admin", "user", "update", "--id", "nobody", "--status", "asleep"],
      2,
      /--status asleep: use one of active, deactivated, locked/,
    ],
    [["admin", "key", "create", "--user", "nobody", "--scopes", "WORKFLOW_READ"], 1, /no user with id nobody/],
    [
      ["admin", "key", "create", "--user", "u", "--scopes", "WORKFLOW_READ,EVERYTHING"],
      2,
      /--scopes EVERYTHING: use one of WORKFLOW_READ/,
    ],
    [
      ["admin", "key", "create", "--user", "u", "--scopes", "WORKFLOW_READ", "--expires-in", "soon"],
      2,
      /--expires-in soon/,
    ],
    [["admin", "key", "revoke", "--id", "nokey"], 1, /no API key with id nokey/],
    [["admin", "audit", "--since", "yesterday"], 2, /--since yesterday/],
    [["admin", "keys"], 2, /unknown command `wf admin keys`/],
    [["workflow", "import", "--user", "u"], 2, /needs a workflow file/],
    [
      ["workflow", "share", "--id", "w", "--user", "u", "--role", "owner"],
      2,
      /--role owner: use one of viewer, editor/,
    ],
    [["workflow", "share", "--id", "nope", "--user", "u", "--role", "viewer"], 1, /no workflow with id nope/],
  ])("wf %j exits %i", async ([args, code, message], { expect }) => {
    const r = await wf(...args);
    expect(r.stderr).toMatch(message);
    expect(r.code).toBe(code);
  });

  it("refuses a second account with the same email, in any letter case", async () => {
    await json("admin", "user", "create", "--email", "twice@example.com", "--password", "12345678", "--plan", "free");
    const r = await wf(
      "admin",
      "user",
      "create",
      "--email",
      "TWICE@example.com",
      "--password",
      "12345678",
      "--plan",
      "pro",
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/a user with email twice@example.com already exists/);
  });

  it("prints a workflow file's mistakes with line and column, refuses one too large to store, and stores nothing", async () => {
    const user = await json<{ id: string }>(
      "admin",
      "user",
      "create",
      "--email",
      "files@example.com",
      "--password",
      "12345678",
      "--plan",
      "free",
    );
    const r = await wf("workflow", "import", files.broken, "--user", user.id);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/broken\.yaml:\d+:\d+/);
    expect((await platform.store.workflows.listVisible(user.id, { page: 1, size: 5 })).total).toBe(0);
    const huge = await wf("workflow", "import", files.huge, "--user", user.id);
    expect(huge.code).toBe(1);
    expect(huge.stderr).toMatch(
      /the workflow is too large to store: its YAML and its parse .* would take \d+ bytes, over the \d+ a stored/,
    );
    expect((await platform.store.workflows.listVisible(user.id, { page: 1, size: 5 })).total).toBe(0);
    const other = await wf("workflow", "import", files.hello, "--user", "nobody");
    expect(other.code).toBe(1);
    expect(other.stderr).toMatch(/no user with id nobody/);
  });

  it("refuses a new workflow past the plan's workflows, as the console does, and still stores new versions", async () => {
    const user = await json<{ id: string }>(
      "admin",
      "user",
      "create",
      "--email",
      "bounded@example.com",
      "--password",
      "12345678",
      "--plan",
      "free",
    );
    const definition = { name: "seeded", steps: [] };
    const seeded = Array.from({ length: PLAN_WORKFLOWS.free }, () =>
      newWorkflowRecord({ ownerId: user.id, yaml: "name: seeded\nsteps: []\n", definition }),
    );
    await Promise.all(seeded.map((w) => platform.store.workflows.create(w)));
    const refused = await wf("workflow", "import", files.hello, "--user", user.id);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/the free plan allows 100 workflows per account, and this account owns 100/);
    const updated = await json<{ version: number }>(
      "workflow",
      "import",
      files.hello,
      "--user",
      user.id,
      "--id",
      seeded[0]!.id,
    );
    expect(updated.version).toBe(2);
  });

  it("refuses a code step's timeout over the owner's plan's, as the console does, and takes it on a larger plan", async () => {
    const user = async (plan: string) =>
      (
        await json<{ id: string }>(
          "admin",
          "user",
          "create",
          "--email",
          `${plan}-nightly@example.com`,
          "--password",
          "12345678",
          "--plan",
          plan,
        )
      ).id;
    const refused = await wf("workflow", "import", files.nightly, "--user", await user("free"));
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /nightly\.yaml:4:\d+ {2}steps\[0\]\.timeout: step `crunch` asks for a timeout of 3600 s, over the 300 s \(5 min\) the free plan allows/,
    );
    expect(
      (await json<{ version: number }>("workflow", "import", files.nightly, "--user", await user("enterprise")))
        .version,
    ).toBe(1);
  });
});
