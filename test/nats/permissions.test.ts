import { createHmac, randomBytes } from "node:crypto";
import { copyFile, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/nats-core";
import { connect } from "@nats-io/transport-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey, createUser, SCOPES } from "@wf/shared/auth";
import {
  ADMIN_USER,
  connectNats,
  inboxPrefix,
  passwordVariable,
  SERVICE_USERS,
  type ServiceUser,
} from "@wf/shared/nats";
import { SecretBox, SERVER_KEYS, setSecret } from "@wf/shared/secrets";
import { newWorkflowRecord, openStore, type Store } from "@wf/shared/store";
import { startNatsServer, waitFor, type NatsServerHandle } from "@wf/testing";
import { ENTRIES, opsBase, startServiceProcess, type ServiceProcess } from "../support/processes";
import { definitionOf } from "../support/runtime";

/*
 * The production set-up: nats-server with deploy/nats/auth.conf (users and permissions), each
 * service its own process under its own user, the keys in variables. The namespace is `wf`,
 * the one auth.conf is written for.
 */
const NS = "wf";
const AUTH_CONF = new URL("../../deploy/nats/auth.conf", import.meta.url);
// nats-server reads a password from its environment as a config value: one starting with a digit would be a number
// (docs/operations.md).
const PASSWORDS = Object.fromEntries(
  [...SERVICE_USERS, ADMIN_USER].map((user) => [user, `p${randomBytes(24).toString("hex")}`]),
);
const KEYS = {
  WF_SECRETS_KEY: randomBytes(24).toString("base64url"),
  WF_WEBHOOK_SECRET_KEY: randomBytes(24).toString("base64url"),
  WF_URL_SIGNING_KEY: randomBytes(24).toString("base64url"),
};
/** What each service gets in docker-compose.yml: its user, and the keys it uses. */
const SERVICE_KEYS: Record<ServiceUser, Partial<typeof KEYS>> = {
  edge: { WF_WEBHOOK_SECRET_KEY: KEYS.WF_WEBHOOK_SECRET_KEY, WF_URL_SIGNING_KEY: KEYS.WF_URL_SIGNING_KEY },
  executor: { WF_SECRETS_KEY: KEYS.WF_SECRETS_KEY },
  approvals: {},
  scheduler: {},
};
const READY: Record<ServiceUser, string> = {
  edge: "edge listening",
  executor: "executor ready",
  approvals: "approvals ready",
  scheduler: "scheduler ready",
};

let dir: string;
let server: NatsServerHandle;
let services: Record<ServiceUser, ServiceProcess>;
let admin: NatsConnection;
let store: Store;
let base: string;

function auth(user: string) {
  return { user, pass: PASSWORDS[user]! };
}

/** Every service process started, stopped at the end even when a start of others failed. */
const started: ServiceProcess[] = [];

/** Starts services together; those that did start are stopped at the end whatever happens. */
async function startServices(users: ServiceUser[]): Promise<ServiceProcess[]> {
  const results = await Promise.allSettled(users.map(startService));
  for (const r of results) if (r.status === "fulfilled") started.push(r.value);
  const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
  if (failed) throw failed.reason;
  return results.map((r) => (r as PromiseFulfilledResult<ServiceProcess>).value);
}

function startService(user: ServiceUser): Promise<ServiceProcess> {
  const env = {
    NATS_URL: server.url,
    NATS_USER: user,
    NATS_PASSWORD: PASSWORDS[user]!,
    WF_NAMESPACE: NS,
    WF_DATA_DIR: join(dir, `data-${user}`),
    PORT: "0",
    HOST: "127.0.0.1",
    // Waits park, so that the scheduler's timers wake them.
    WF_HOLD_WAIT_MS: "0",
    WF_SCHEDULE_SCAN_MS: "200",
    ...SERVICE_KEYS[user],
  };
  return startServiceProcess(ENTRIES[user], env, [READY[user]], { timeoutMs: 40_000 });
}

function edgeAddress(): string {
  return /"address":"(http:[^"]+)"/.exec(services.edge.output())![1]!;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "wf-perms-"));
  await copyFile(AUTH_CONF, join(dir, "auth.conf"));
  await writeFile(join(dir, "server.conf"), "include ./auth.conf\n");
  server = await startNatsServer({
    config: join(dir, "server.conf"),
    env: Object.fromEntries(Object.entries(PASSWORDS).map(([user, pw]) => [passwordVariable(user), pw])),
  });
  // All at once, on a server that has nothing yet: whichever comes first creates what it finds missing.
  const all = await startServices([...SERVICE_USERS]);
  services = Object.fromEntries(SERVICE_USERS.map((user, i) => [user, all[i]!])) as Record<ServiceUser, ServiceProcess>;
  base = edgeAddress();
  admin = await connectNats(server.url, "wf-cli", { auth: auth(ADMIN_USER) });
  store = await openStore({ kind: "kv", nc: admin, namespace: NS });
}, 60_000);

afterAll(async () => {
  await store?.close();
  await admin?.close();
  await Promise.all(started.map((s) => s.stop()));
  await server?.stop();
  await rm(dir, { recursive: true, force: true });
});

// Answers are read by path in the assertions; their shapes are the API tests' subject.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

async function api(
  method: string,
  path: string,
  opts: { key?: string; body?: unknown; headers?: Record<string, string>; raw?: string } = {},
) {
  const res = await fetch(base + path, {
    method,
    headers: {
      ...(opts.key ? { authorization: `Bearer ${opts.key}` } : {}),
      ...(opts.body !== undefined || opts.raw !== undefined ? { "content-type": "application/json" } : {}),
      ...opts.headers,
    },
    ...(opts.body !== undefined
      ? { body: JSON.stringify(opts.body) }
      : opts.raw !== undefined
        ? { body: opts.raw }
        : {}),
  });
  const text = await res.text();
  return {
    status: res.status,
    text,
    body: (text.startsWith("{") ? JSON.parse(text) : {}) as Json,
    headers: res.headers,
  };
}

const TOUR = `
name: tour
steps:
  - name: compute
    type: code
    language: javascript
    input: { secret_length: "{{ $length(secrets.api_token) }}" }
    code: |
      artifacts.write("report.txt", "the report");
      return input;
  - { name: pause, type: wait, seconds: 1 }
  - name: check
    type: transform
    manual_approval:
      message: "Go on?"
      timeout: 3600
      groups:
        - name: rows
          title: Rows
          items: [{ id: 1 }]
          columns: [{ key: id, title: ID, type: number }]
    output: { approved: "{{ approval.rows }}" }
`;

/** The service users' own violations in the server's log (the probes below connect as `probe-*`). */
function serviceViolations(): string[] {
  return server
    .log()
    .split("\n")
    .filter((line) => /Violation/.test(line) && /nats\.js:wf-/.test(line));
}

describe("production NATS permissions (deploy/nats/auth.conf)", () => {
  it("each service under its own user carries a whole execution after an upgrade: HTTP trigger, code step with a secret and an artifact, a parked wait, an approval, webhooks, a schedule, a chain", async () => {
    const user = await createUser(store, {
      email: `tour-${randomBytes(4).toString("hex")}@example.com`,
      password: "a long password",
      plan: "pro",
    });
    const { key } = await createApiKey(store, { ownerId: user.id, scopes: [...SCOPES] });
    const tour = newWorkflowRecord({ ownerId: user.id, yaml: TOUR, definition: definitionOf(TOUR) });
    await store.workflows.create(tour);
    const chainedYaml = `
name: chained
triggers:
  - { type: DELAYED_COMPLETION, after: ${tour.id}, delay: 0 }
steps:
  - { name: noted, type: transform, output: chained }
`;
    const chained = newWorkflowRecord({ ownerId: user.id, yaml: chainedYaml, definition: definitionOf(chainedYaml) });
    await store.workflows.create(chained);
    const scheduledYaml = `
name: ticking
triggers:
  - { type: schedule, cron: "* * * * * *" }
steps:
  - { name: tick, type: transform, output: ticked }
`;
    const scheduled = newWorkflowRecord({
      ownerId: user.id,
      yaml: scheduledYaml,
      definition: definitionOf(scheduledYaml),
    });
    await store.workflows.create(scheduled);

    // An upgrade: the keys where an earlier version kept them, in `wf_edge`, and records sealed under
    // them; the executor and the edge restart, and move them under their own users' permissions.
    const legacyKv = await new Kvm(admin).create(`${NS}_edge`, { history: 1 });
    const legacyKeys = { ownerSecrets: randomBytes(32), webhookSecrets: randomBytes(32), urlSigning: randomBytes(32) };
    for (const [kind, k] of Object.entries(legacyKeys))
      await legacyKv.put(SERVER_KEYS[kind as keyof typeof legacyKeys].legacyName, k.toString("hex"));
    const token = `token-${randomBytes(8).toString("hex")}`;
    await setSecret(store, new SecretBox(legacyKeys.ownerSecrets), user.id, "api_token", token);
    const oldSecret = "a webhook secret from before the upgrade";
    const oldHookId = randomBytes(8).toString("hex");
    const now = Date.now();
    await store.webhooks.create({
      id: oldHookId,
      ownerId: user.id,
      workflowId: chained.id,
      name: "from before",
      mode: "hmac",
      apiKeyId: null,
      secretKey: new SecretBox(legacyKeys.webhookSecrets).seal(oldSecret, oldHookId),
      variableMapping: null,
      allowedSourceIps: [],
      enabled: true,
      replayProtection: false,
      createdAt: now,
      updatedAt: now,
    });
    await Promise.all([services.edge.stop(), services.executor.stop()]);
    const [edge, executor] = await startServices(["edge", "executor"]);
    services = { ...services, edge: edge!, executor: executor! };
    base = edgeAddress();
    expect((await (await jetstreamManager(admin)).streams.info(`KV_${NS}_edge`)).state.messages).toBe(0);

    const started = await api("POST", `/api/v1/workflows/${tour.id}/executions`, { key, body: {} });
    expect(started.status, started.text).toBe(202);
    const executionId = started.body.executionId as string;
    const status = () => api("GET", `/api/v1/executions/${executionId}`, { key });
    await waitFor(async () => (await status()).body.status === "AWAITING_APPROVAL", {
      timeoutMs: 30_000,
      intervalMs: 250,
      what: "the tour to wait for its approval",
    });
    expect((await status()).body.stepResults.compute).toMatchObject({
      status: "COMPLETED",
      output: { secret_length: token.length },
    });

    const artifacts = await api("GET", `/api/v1/executions/${executionId}/artifacts`, { key });
    expect(artifacts.body.total).toBe(1);
    const download = await fetch(base + (artifacts.body.artifacts[0].downloadUrl as string));
    expect(await download.text()).toBe("the report");

    const approvals = await api("GET", `/api/v1/approvals/execution/${executionId}`, { key });
    const approved = await api("POST", `/api/v1/approvals/${approvals.body.approvals[0].id as string}/approve`, {
      key,
      body: {},
    });
    expect(approved.status, approved.text).toBe(200);
    await waitFor(async () => (await status()).body.status === "COMPLETED", {
      timeoutMs: 30_000,
      intervalMs: 250,
      what: "the tour to complete",
    });

    // A webhook made in a console session, triggered with its HMAC signature.
    const login = await api("POST", "/api/console/login", { body: { email: user.email, password: "a long password" } });
    expect(login.status, login.text).toBe(200);
    const session = {
      cookie: login.headers.get("set-cookie")!.split(";")[0]!,
      "x-csrf-token": login.body.csrfToken as string,
    };
    const secret = "a webhook secret of 16+ chars";
    const hook = await api("POST", "/api/webhooks", {
      headers: session,
      body: { workflowId: chained.id, name: "from CI", secretKey: secret },
    });
    expect(hook.status, hook.text).toBe(201);
    const payload = "{}";
    const triggered = await api("POST", `/api/webhooks/${hook.body.id as string}/trigger`, {
      raw: payload,
      headers: { "x-webhook-signature": `sha256=${createHmac("sha256", secret).update(payload).digest("hex")}` },
    });
    expect(triggered.status, triggered.text).toBe(202);
    const oldPayload = JSON.stringify({ from: "before" });
    const oldTriggered = await api("POST", `/api/webhooks/${oldHookId}/trigger`, {
      raw: oldPayload,
      headers: { "x-webhook-signature": `sha256=${createHmac("sha256", oldSecret).update(oldPayload).digest("hex")}` },
    });
    expect(oldTriggered.status, oldTriggered.text).toBe(202);

    const ended = async (workflowId: string, source: string) =>
      (await store.executions.list({ ownerId: user.id, workflowId, page: 1, size: 100 })).items.filter(
        (e) => e.triggerSource === source && e.status === "COMPLETED",
      ).length;
    await waitFor(async () => (await ended(chained.id, "chained")) >= 1, {
      timeoutMs: 30_000,
      what: "the chained workflow to run after the tour",
    });
    await waitFor(async () => (await ended(chained.id, "webhook")) >= 2, {
      timeoutMs: 30_000,
      what: "the webhooks' executions to complete",
    });
    await waitFor(async () => (await ended(scheduled.id, "schedule")) >= 1, {
      timeoutMs: 30_000,
      what: "a scheduled tick to run",
    });

    // Their readiness checks and consumers' gauges ask only what each user may.
    for (const [name, proc] of Object.entries(services)) {
      expect((await fetch(`${opsBase(proc)}/readyz`)).status, name).toBe(200);
      expect((await fetch(`${opsBase(proc)}/metrics`)).status, name).toBe(200);
    }
    expect((await fetch(`${base}/readyz`)).status).toBe(200);

    // Nothing any service did was refused.
    expect(serviceViolations()).toEqual([]);
  }, 120_000);

  it("refuses a client without credentials, or with a wrong password", async () => {
    await expect(connect({ servers: server.url, reconnect: false })).rejects.toMatchObject({
      name: "AuthorizationError",
    });
    await expect(
      connect({ servers: server.url, reconnect: false, user: "edge", pass: "not-its-password" }),
    ).rejects.toMatchObject({
      name: "AuthorizationError",
    });
  });

  async function as(user: ServiceUser): Promise<NatsConnection> {
    return connectNats(server.url, `probe-${user}`, { auth: auth(user), inboxPrefix: inboxPrefix(user) });
  }

  it("the edge reads neither the owners' secrets nor the replies sent to the executor", async () => {
    const nc = await as("edge");
    try {
      const jsm = await jetstreamManager(nc);
      await expect(
        jsm.direct.getMessage(`KV_${NS}_secrets`, { last_by_subj: `$KV.${NS}_secrets.any` }),
      ).rejects.toThrow(/Permissions Violation/);
      const snoop = nc.subscribe(`${inboxPrefix("executor")}.>`);
      const refused = (async () => {
        for await (const _ of snoop) return "message";
        return "ended";
      })().catch((err: Error) => err.message);
      expect(await refused).toMatch(/Permissions Violation for Subscription/);
      // Its own work still goes through on the same connection.
      expect((await jsm.streams.info(`${NS}_CMD`)).config.name).toBe(`${NS}_CMD`);
    } finally {
      await nc.close();
    }
  });

  it("the edge asks the executors for an owner's secrets, and an executor under its user answers (allow_responses)", async () => {
    const nc = await as("edge");
    try {
      const reply = await nc.request(
        `${NS}.svc.secrets`,
        JSON.stringify({ op: "list", ownerId: "nobody-has-secrets" }),
        { timeout: 10_000 },
      );
      expect(reply.json()).toEqual({ ok: true, secrets: [] });
    } finally {
      await nc.close();
    }
  });

  it("the executor may not decide approvals, nor read API keys; approvals may not start executions; the scheduler may not tail all events", async () => {
    const executor = await as("executor");
    const approvals = await as("approvals");
    const scheduler = await as("scheduler");
    try {
      await expect(jetstream(executor).publish(`${NS}.cmd.approval.approve.forged`, "{}")).rejects.toThrow(
        /Permissions Violation/,
      );
      await expect(
        (await jetstreamManager(executor)).direct.getMessage(`KV_${NS}_api_keys`, {
          last_by_subj: `$KV.${NS}_api_keys.any`,
        }),
      ).rejects.toThrow(/Permissions Violation/);
      await expect(jetstream(approvals).publish(`${NS}.cmd.exec.start.forged`, "{}")).rejects.toThrow(
        /Permissions Violation/,
      );
      await expect(
        (await jetstreamManager(scheduler)).consumers.add(`${NS}_EVT`, {
          durable_name: "snoop",
          filter_subject: `${NS}.evt.>`,
        }),
      ).rejects.toThrow(/Permissions Violation/);
    } finally {
      await Promise.all([executor.close(), approvals.close(), scheduler.close()]);
    }
  });
});
