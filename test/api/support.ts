import type { FastifyInstance, LightMyRequestResponse } from "fastify";
import { afterAll, beforeAll } from "vitest";
import { createApiKey, SCOPES, type Plan, type Scope, type UserStatus } from "@wf/shared/auth";
import { openPlatform, type Platform } from "@wf/shared/runtime";
import { newWorkflowRecord, type UserRecord, type WorkflowRecord } from "@wf/shared/store";
import { ExecutionStatusView } from "@wf/shared/api";
import { newId, TERMINAL_STATUSES, type ExecutionSnapshot } from "@wf/shared/execution";
import { buildEdge } from "@wf/edge";
import {
  definitionOf,
  startNatsServer,
  startRuntime,
  testConfig,
  waitFor,
  type InProcessRuntime,
} from "../support/runtime";
import {
  startNatsCluster,
  testUser,
  testUserWithPassword,
  type NatsClusterHandle,
  type NatsServerHandle,
} from "@wf/testing";

export const ALL_SCOPES: Scope[] = [...SCOPES];

/** The edge under test, in this process, on a real nats-server and store (one per test file). */
export interface ApiEnv {
  server: NatsServerHandle;
  platform: Platform;
  app: FastifyInstance;
  ns: string;
  /** The edge's clock: null follows Date.now, a number pins it. */
  clock: { now: number | null };
  /** Executor and scheduler, when the file asked for them. */
  runtime: InProcessRuntime | null;
}

/**
 * Starts the environment before the file's tests and stops it after; read it inside tests. `cluster`: on that many
 * clustered nats-servers (every stream and bucket replicated on three), `server` being the first.
 */
export function useApi(opts: { runtime?: boolean; env?: Record<string, string>; cluster?: number } = {}): () => ApiEnv {
  let env: ApiEnv | undefined;
  let cluster: NatsClusterHandle | undefined;
  beforeAll(async () => {
    cluster = opts.cluster === undefined ? undefined : await startNatsCluster(opts.cluster, `api-${newId().slice(-6)}`);
    const server = cluster ? cluster.servers[0]! : await startNatsServer();
    const config = testConfig(cluster ?? server, opts.env);
    const runtime = opts.runtime ? await startRuntime(config) : null;
    const platform = runtime?.platform ?? (await openPlatform(config, "edge-test"));
    const clock: ApiEnv["clock"] = { now: null };
    const app = await buildEdge(platform, { clock: () => clock.now ?? Date.now() });
    env = { server, platform, app, ns: config.WF_NAMESPACE, clock, runtime };
  });
  afterAll(async () => {
    await env?.app.close();
    if (env?.runtime) await env.runtime.stop();
    else await env?.platform.close();
    await (cluster ?? env?.server)?.stop();
  });
  return () => {
    if (!env) throw new Error("the API environment is not started yet");
    return env;
  };
}

export interface Account {
  user: UserRecord;
  /** The full API key, `wfk_<id>_<secret>`. */
  key: string;
  keyId: string;
}

/** A console login: its user, the session cookie and the CSRF token that changes ask for. */
export interface Session {
  user: UserRecord;
  cookie: string;
  csrf: string;
}

/** A user with a real password (scrypt, at a fixture's cost), logged in to the console. */
export async function consoleSession(env: ApiEnv, plan: Plan = "free"): Promise<Session> {
  const password = "correct horse battery";
  const user = await testUserWithPassword(password, { plan });
  await env.platform.store.users.create(user);
  const login = await call(env, "POST", "/api/console/login", { body: { email: user.email, password } });
  if (login.statusCode !== 200) throw new Error(`login failed: ${login.statusCode} ${login.body}`);
  const cookie = String(login.headers["set-cookie"]).split(";")[0]!;
  return { user, cookie, csrf: (login.json() as { csrfToken: string }).csrfToken };
}

/** A console login whose user also has an API key, for the v1 routes. */
export type ConsoleAccount = Account & Session;

export async function consoleAccount(env: ApiEnv): Promise<ConsoleAccount> {
  const session = await consoleSession(env, "pro");
  const { key, record } = await createApiKey(env.platform.store, { ownerId: session.user.id, scopes: ALL_SCOPES });
  return { ...session, key, keyId: record.id };
}

/**
 * A user with one key. Users are written directly (a placeholder password hash): scrypt's cost
 * belongs to the account tests, not to every test that needs a caller.
 */
export async function account(
  env: ApiEnv,
  opts: { plan?: Plan; scopes?: Scope[]; status?: UserStatus; expiresAt?: number | null } = {},
): Promise<Account> {
  const user = testUser({ ...(opts.plan ? { plan: opts.plan } : {}), ...(opts.status ? { status: opts.status } : {}) });
  await env.platform.store.users.create(user);
  const { key, record } = await createApiKey(env.platform.store, {
    ownerId: user.id,
    scopes: opts.scopes ?? ALL_SCOPES,
    expiresAt: opts.expiresAt ?? null,
  });
  return { user, key, keyId: record.id };
}

export async function anotherKey(env: ApiEnv, owner: Account, scopes: Scope[] = ALL_SCOPES): Promise<string> {
  return (await createApiKey(env.platform.store, { ownerId: owner.user.id, scopes })).key;
}

/** Stores a workflow (as `wf workflow import` would) and returns its record. */
export async function storeWorkflow(
  env: ApiEnv,
  ownerId: string,
  yaml: string,
  over: Partial<WorkflowRecord> = {},
): Promise<WorkflowRecord> {
  const definition = definitionOf(yaml);
  const record: WorkflowRecord = { ...newWorkflowRecord({ ownerId, yaml, definition }), ...over };
  await env.platform.store.workflows.create(record);
  return record;
}

/**
 * An execution of SIMPLE_YAML as the executor would have stored it, written straight to the store by
 * tests that need records in a given state without running them; `over` sets what the test is about.
 */
export function storedExecution(
  over: Partial<ExecutionSnapshot> & Pick<ExecutionSnapshot, "workflowId" | "ownerId">,
): ExecutionSnapshot {
  const createdAt = over.createdAt ?? Date.now();
  const none = { promptTokens: 0, completionTokens: 0, totalTokens: 0, costUsd: 0 };
  return {
    id: newId(createdAt),
    workflowName: "simple",
    workflowVersion: 1,
    status: "COMPLETED",
    triggerSource: "open_api",
    enableMonitoring: false,
    error: null,
    currentStep: null,
    completedSteps: 1,
    totalSteps: 1,
    createdAt,
    startedAt: createdAt,
    completedAt: createdAt + 1,
    vars: {},
    definition: definitionOf(SIMPLE_YAML),
    steps: {},
    usage: none,
    parent: null,
    holder: null,
    cancelRequested: false,
    eventSeq: 0,
    outbox: [],
    debug: null,
    rerunOf: null,
    rerunFrom: null,
    savedUsage: none,
    stepTest: null,
    ...over,
  };
}

/**
 * A key's plan limits its requests (a test user's, pro: 300 a minute), so a poll goes at most four times a second: at
 * waitFor's 20 ms, a poller of an execution slowed by the whole suite's load spent them in 6 s and then saw only 429s
 * until it gave up.
 */
const POLL_MS = 250;

/** Polls `GET /api/v1/executions/{id}` with `key`, as a client would, until its status is one of `statuses`. */
export function statusReached(
  env: ApiEnv,
  key: string,
  id: string,
  statuses: readonly string[],
  timeoutMs = 20_000,
): Promise<ExecutionStatusView> {
  return waitFor(
    async () => {
      const view = ExecutionStatusView.parse((await call(env, "GET", `/api/v1/executions/${id}`, { key })).json());
      return statuses.includes(view.status) ? view : undefined;
    },
    { timeoutMs, intervalMs: POLL_MS, what: `execution ${id} to reach ${statuses.join("/")} through the API` },
  );
}

/** Starts workflow `w` through `POST /api/v1/workflows/{id}/executions` with `who`'s key; answers the execution's id. */
export async function startV1(env: ApiEnv, who: Account, w: WorkflowRecord): Promise<string> {
  const started = await call(env, "POST", `/api/v1/workflows/${w.id}/executions`, { key: who.key, body: {} });
  if (started.statusCode !== 202) throw new Error(`the start was answered ${started.statusCode}: ${started.body}`);
  return (started.json() as { executionId: string }).executionId;
}

/** The execution's status view once it ended, read through the API with `who`'s key. */
export function ended(env: ApiEnv, who: Account, executionId: string): Promise<ExecutionStatusView> {
  return statusReached(env, who.key, executionId, [...TERMINAL_STATUSES], 30_000);
}

export interface Call {
  key?: string;
  body?: unknown;
  headers?: Record<string, string>;
}

/** A request through the real routes (Fastify inject); the key goes in `Authorization: Bearer`. */
export function call(
  env: ApiEnv,
  method: "GET" | "POST" | "PUT" | "DELETE",
  url: string,
  opts: Call = {},
): Promise<LightMyRequestResponse> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.key !== undefined) headers.authorization = `Bearer ${opts.key}`;
  if (opts.body !== undefined) headers["content-type"] ??= "application/json";
  return env.app.inject({
    method,
    url,
    headers,
    ...(opts.body === undefined
      ? {}
      : { payload: typeof opts.body === "string" ? opts.body : JSON.stringify(opts.body) }),
  });
}

export const SIMPLE_YAML = `
name: simple
variables:
  who: { type: string, default: world }
  n: { type: number, default: 1 }
steps:
  - name: greet
    type: transform
    output: { text: "hello {{ vars.who }}", n: "{{ vars.n }}" }
`;
