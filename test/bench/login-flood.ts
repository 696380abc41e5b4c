/**
 * A flood of wrong console passwords, as the throttle's issue measured it: `npx tsx test/bench/login-flood.ts`.
 * Times another account's correct login and an API-started workflow alone, then LOGIN_FLOOD_DELAY_MS
 * into LOGIN_FLOOD parallel wrong passwords (from one address, or as many with LOGIN_FLOOD_SPREAD=1);
 * then whether the right password is refused from the flood's address and taken from another. A login
 * that gives up (30 s; the other account's 300 s) is status 0 (docs/webhooks.md#login-throttling).
 */
import { z } from "zod";
import { createApiKey, createUser, SCOPES } from "@wf/shared/auth";
import { newId } from "@wf/shared/execution";
import { newWorkflowRecord } from "@wf/shared/store";
import { buildEdge } from "@wf/edge";
import { definitionOf, startNatsServer, startRuntime, testConfig } from "../support/runtime";

const options = z
  .object({
    LOGIN_FLOOD: z.coerce.number().int().min(1).default(200),
    LOGIN_FLOOD_SPREAD: z.enum(["0", "1"]).default("0"),
    LOGIN_FLOOD_DELAY_MS: z.coerce.number().int().min(0).default(2_000),
  })
  .parse(process.env);
const spread = options.LOGIN_FLOOD_SPREAD === "1";

const PASSWORD = "correct horse battery";
const YAML = "name: one-step\nsteps:\n  - { name: only, type: transform, output: done }\n";

const server = await startNatsServer();
const config = testConfig(server, { WF_TRUSTED_PROXIES: "loopback" });
const runtime = await startRuntime(config);
const app = await buildEdge(runtime.platform);
try {
  await app.listen({ port: 0, host: "127.0.0.1" });
  const address = app.server.address();
  if (address === null || typeof address === "string") throw new Error("the edge has no port");
  const base = `http://127.0.0.1:${address.port}`;
  const store = runtime.platform.store;
  const target = await createUser(store, { email: `${newId()}@example.com`, password: PASSWORD, plan: "pro" });
  const other = await createUser(store, { email: `${newId()}@example.com`, password: PASSWORD, plan: "pro" });
  const { key } = await createApiKey(store, { ownerId: other.id, scopes: [...SCOPES], expiresAt: null });
  const workflow = newWorkflowRecord({ ownerId: other.id, yaml: YAML, definition: definitionOf(YAML) });
  await store.workflows.create(workflow);

  const login = async (email: string, password: string, from: string, timeoutMs = 30_000) => {
    const started = performance.now();
    try {
      const r = await fetch(`${base}/api/console/login`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-forwarded-for": from },
        body: JSON.stringify({ email, password }),
        signal: AbortSignal.timeout(timeoutMs),
      });
      await r.arrayBuffer();
      return { status: r.status, ms: performance.now() - started };
    } catch {
      return { status: 0, ms: performance.now() - started };
    }
  };
  const api = async (method: string, path: string) => {
    const r = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: method === "POST" ? "{}" : null,
    });
    return z.object({ executionId: z.string().optional(), status: z.string().optional() }).parse(await r.json());
  };
  const workflowRun = async () => {
    const started = performance.now();
    const { executionId } = await api("POST", `/api/v1/workflows/${workflow.id}/executions`);
    const accepted = performance.now() - started;
    while ((await api("GET", `/api/v1/executions/${executionId}`)).status !== "COMPLETED")
      await new Promise((resolve) => setTimeout(resolve, 20));
    return { accepted, completed: performance.now() - started };
  };
  const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  const floodFrom = (i: number) => (spread ? `198.18.${i >> 8}.${i & 255}` : "198.51.100.1");

  console.log(`alone: login ${s((await login(other.email, PASSWORD, "203.0.113.1")).ms)}`);
  const alone = await workflowRun();
  console.log(`alone: workflow accepted ${s(alone.accepted)}, completed ${s(alone.completed)}`);

  const sent = performance.now();
  const flood = Array.from({ length: options.LOGIN_FLOOD }, (_, i) => login(target.email, `wrong ${i}`, floodFrom(i)));
  await new Promise((resolve) => setTimeout(resolve, options.LOGIN_FLOOD_DELAY_MS));
  const [during, run] = await Promise.all([login(other.email, PASSWORD, "203.0.113.2", 300_000), workflowRun()]);
  const answers = await Promise.all(flood);
  const statuses = Object.fromEntries(
    [...new Set(answers.map((a) => a.status))].map((status) => [
      status,
      answers.filter((a) => a.status === status).length,
    ]),
  );
  console.log(
    `flood of ${options.LOGIN_FLOOD} from ${spread ? "as many addresses" : "one address"}: answered in ${s(performance.now() - sent)}`,
    statuses,
  );
  console.log(
    `during: login ${during.status} in ${s(during.ms)}; workflow accepted ${s(run.accepted)}, completed ${s(run.completed)}`,
  );

  await Promise.all(
    Array.from({ length: options.LOGIN_FLOOD }, (_, i) => login(target.email, `more wrong ${i}`, floodFrom(i))),
  );
  const [there, elsewhere] = [
    await login(target.email, PASSWORD, floodFrom(0)),
    await login(target.email, PASSWORD, "203.0.113.3"),
  ];
  console.log(
    `the right password after ${2 * options.LOGIN_FLOOD} wrong: ${there.status} from the flood's address, ${elsewhere.status} from another`,
  );
} finally {
  await app.close();
  await runtime.stop();
  await server.stop();
}
