import { createHmac } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll } from "vitest";
import { createApiKey, type Plan, type Scope } from "@wf/shared/auth";
import { newId } from "@wf/shared/execution";
import { openPlatform, type Platform } from "@wf/shared/runtime";
import type { UserRecord, WebhookRecord, WorkflowRecord } from "@wf/shared/store";
import { testUser, testUserWithPassword, type NatsServerHandle } from "@wf/testing";
import { buildEdge } from "@wf/edge";
import { definitionOf, startNatsServer, testConfig } from "../support/runtime";

/** A real edge over real HTTP, on a dual-stack socket so that 127.0.0.1 and ::1 both reach it. */
export interface WebhookEnv {
  server: NatsServerHandle;
  platform: Platform;
  app: FastifyInstance;
  port: number;
  ns: string;
}

export function useWebhookEdge(env: Record<string, string> = {}): () => WebhookEnv {
  let state: WebhookEnv | undefined;
  beforeAll(async () => {
    const server = await startNatsServer();
    const config = testConfig(server, { WF_SESSION_COOKIE_SECURE: "0", ...env });
    const platform = await openPlatform(config, "webhook-test");
    const app = await buildEdge(platform);
    await app.listen({ port: 0, host: "::" });
    const address = app.server.address();
    if (address === null || typeof address === "string") throw new Error("no port");
    state = { server, platform, app, port: address.port, ns: config.WF_NAMESPACE };
  });
  afterAll(async () => {
    await state?.app.close();
    await state?.platform.close();
    await state?.server.stop();
  });
  return () => {
    if (!state) throw new Error("the webhook edge is not started yet");
    return state;
  };
}

export interface Owner {
  user: UserRecord;
  key: string;
  keyId: string;
}

export async function owner(
  env: WebhookEnv,
  plan: Plan = "pro",
  scopes: Scope[] = ["WEBHOOK_TRIGGER"],
): Promise<Owner> {
  const user = testUser({ plan });
  await env.platform.store.users.create(user);
  const { key, record } = await createApiKey(env.platform.store, { ownerId: user.id, scopes });
  return { user, key, keyId: record.id };
}

/** A user with a real password (scrypt, at a fixture's cost), for console logins. */
export async function loginUser(
  env: WebhookEnv,
  plan: Plan,
  password = "correct horse battery",
): Promise<{ user: UserRecord; password: string }> {
  const user = await testUserWithPassword(password, { plan });
  await env.platform.store.users.create(user);
  return { user, password };
}

export const VARS_YAML = `
name: vars
variables:
  who: { type: string, default: world }
  n: { type: number, default: 1 }
  flag: { type: boolean, default: false }
steps:
  - name: greet
    type: transform
    output: { text: "hello {{ vars.who }}" }
`;

export async function storeWorkflow(env: WebhookEnv, ownerId: string, yaml = VARS_YAML): Promise<WorkflowRecord> {
  const definition = definitionOf(yaml);
  const now = Date.now();
  const record: WorkflowRecord = {
    id: newId(),
    name: definition.name,
    ownerId,
    yaml,
    definition,
    version: 1,
    sharedWith: {},
    createdAt: now,
    updatedAt: now,
  };
  await env.platform.store.workflows.create(record);
  return record;
}

export async function request(
  env: WebhookEnv,
  method: string,
  path: string,
  opts: { body?: string | Buffer; headers?: Record<string, string>; host?: "127.0.0.1" | "[::1]" } = {},
): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const res = await fetch(`http://${opts.host ?? "127.0.0.1"}:${env.port}${path}`, {
    method,
    headers: { ...(opts.body !== undefined ? { "content-type": "application/json" } : {}), ...opts.headers },
    ...(opts.body !== undefined ? { body: opts.body } : {}),
  });
  const text = await res.text();
  return {
    status: res.status,
    body: text === "" ? {} : (JSON.parse(text) as Record<string, unknown>),
    headers: res.headers,
  };
}

export const hmacHex = (secret: string, body: string | Buffer): string =>
  createHmac("sha256", secret).update(body).digest("hex");

export type WebhookFields = Omit<WebhookRecord, "id" | "ownerId" | "workflowId" | "createdAt" | "updatedAt">;

export interface Session {
  cookie: string;
  csrf: string;
}

export async function login(env: WebhookEnv, email: string, password: string): Promise<Session> {
  const r = await request(env, "POST", "/api/console/login", { body: JSON.stringify({ email, password }) });
  if (r.status !== 200) throw new Error(`login failed: ${r.status} ${JSON.stringify(r.body)}`);
  const cookie = (r.headers.get("set-cookie") ?? "").split(";")[0]!;
  return { cookie, csrf: r.body.csrfToken as string };
}

/** A console request with the session cookie and, unless told otherwise, its CSRF token. */
export function consoleCall(
  env: WebhookEnv,
  session: Session,
  method: string,
  path: string,
  body?: unknown,
  csrf = true,
) {
  return request(env, method, path, {
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    headers: { cookie: session.cookie, ...(csrf ? { "x-csrf-token": session.csrf } : {}) },
  });
}

/** A pro user with a password, an API key and a console session. */
export async function consoleOwner(
  env: WebhookEnv,
  plan: Plan = "pro",
): Promise<{ user: UserRecord; session: Session; key: string; keyId: string }> {
  const { user, password } = await loginUser(env, plan);
  const { key, record } = await createApiKey(env.platform.store, { ownerId: user.id, scopes: ["WEBHOOK_TRIGGER"] });
  return { user, session: await login(env, user.email, password), key, keyId: record.id };
}
