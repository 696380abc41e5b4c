import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import { mkdir, mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect } from "vitest";
import type { NatsConnection } from "@nats-io/nats-core";
import type { Plan } from "@wf/shared/auth";
import { connectNats } from "@wf/shared/nats";
import { openConfiguredStore, type Store } from "@wf/shared/store";
import { startNatsServer, testUserWithPassword } from "@wf/testing";
import { LlmTestServer } from "../ai/support/llm-server";
import { runCli } from "../cli/cli-process";
import { entryArgs } from "../support/built-entries";
import { ENTRIES } from "../support/processes";
import { uniqueNamespace } from "../support/runtime";
import { ONE_SANDBOX_RUNNER } from "../support/sandbox-pool";
import { keepForWorker } from "../support/worker-wide";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/**
 * Debian's chromium: its headless shell (.ci/run installs it), else the whole browser; CHROMIUM_PATH names another.
 * The shell renders pages as the browser does, without the browser's own layers: on a 2-core VM each file's browser
 * took 25-50 % less CPU (docs/operations.md#development).
 */
export const CHROMIUM =
  process.env.CHROMIUM_PATH ??
  ["/usr/lib/chromium/chromium-headless-shell", "/usr/bin/chromium"].find((path) => existsSync(path)) ??
  "/usr/bin/chromium";

/** Screenshots for a person to look at (not committed): `.tmp/screenshots/<name>.png`. */
export const SCREENSHOTS = join(ROOT, ".tmp/screenshots");

/**
 * `describe` for browser tests: skipped, saying why, on a machine without chromium (CI installs it).
 */
export const describeInBrowser: typeof describe.skip = (
  existsSync(CHROMIUM) ? describe : describe.skip
) as typeof describe.skip;
if (!existsSync(CHROMIUM))
  console.warn(
    `[browser tests] skipped: no chromium at ${CHROMIUM} (apt-get install chromium-headless-shell, or set CHROMIUM_PATH)`,
  );

export interface ConsoleService {
  /** The service's base URL, `http://127.0.0.1:<port>`. */
  base: string;
  ns: string;
  /** Environment for the `wf` CLI to reach the same NATS and namespace. */
  cliEnv: Record<string, string>;
  browser: Browser;
  output(): string;
  /** The service's store, opened by the test on first use: for accounts made as fixtures. */
  store(): Promise<Store>;
}

export interface ServiceOptions {
  /** Extra environment of the service (LLM providers, prices, egress). Read at beforeAll. */
  env?: () => Record<string, string>;
  /**
   * Started by `npm start`, as a person runs it from a clone (its prestart builds dist/ when its sources changed).
   * Otherwise from the test run's bundle, as the image runs it: the same code, with no build to wait for.
   */
  npmStart?: boolean;
}

/** What `npm start`'s prestart does for the console: builds it when missing or made from other sources. */
function buildConsole(): void {
  execFileSync(process.execPath, [join(ROOT, "scripts/ensure-console-build.mjs")], { cwd: ROOT, stdio: "inherit" });
}

const live = new Set<ChildProcess>();
process.once("exit", () => {
  for (const p of live) if (p.pid !== undefined) killGroup(p.pid, "SIGKILL");
});

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
}

interface Started {
  service: ConsoleService;
  /** Stops the browser, the service (SIGTERM, then SIGKILL of its group after 10 s) and its nats-server. */
  stop(): Promise<void>;
  /** Removes its data directory and its nats-server's store: after the stop, or as the worker exits. */
  removeDirs(): void;
}

/**
 * The all-in-one service, from the test run's bundle or by `npm start` (`opts.npmStart`), on a
 * nats-server of its own, and a headless chromium. A missing or stale console is built first, as
 * `npm start`'s prestart builds it.
 */
async function startConsoleService(opts: ServiceOptions): Promise<Started> {
  const nats = await startNatsServer();
  const dataDir = await mkdtemp(join(tmpdir(), "wf-browser-"));
  const ns = uniqueNamespace();
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "/tmp",
    NATS_URL: nats.url,
    WF_NAMESPACE: ns,
    WF_DATA_DIR: dataDir,
    PORT: "0",
    WF_OPS_PORT: "0",
    LOG_LEVEL: "warn",
    ...ONE_SANDBOX_RUNNER,
    ...opts.env?.(),
  };
  if (!opts.npmStart) buildConsole();
  const [command, args] = opts.npmStart
    ? ["npm", ["start", "--silent"]]
    : [process.execPath, entryArgs(ROOT, ENTRIES.allInOne)];
  const proc = spawn(command, args, { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
  live.add(proc);
  let out = "";
  proc.stdout!.on("data", (b: Buffer) => (out += b.toString()));
  proc.stderr!.on("data", (b: Buffer) => (out += b.toString()));
  // A service that never got ready is not left running, nor its server and directories.
  const abandon = async (err: unknown): Promise<never> => {
    if (proc.pid !== undefined) killGroup(proc.pid, "SIGKILL");
    live.delete(proc);
    await nats.stop();
    rmSync(dataDir, { recursive: true, force: true, maxRetries: 2 });
    throw err;
  };
  const base = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the service was not ready in 120 s:\n${out}`)), 120_000);
    const check = () => {
      const m = /\[wf\] ready: edge on (http:\/\/[^\s,]+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    proc.stdout!.on("data", check);
    proc.stderr!.on("data", check);
    proc.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`the service exited with ${code} before it was ready:\n${out}`));
    });
  }).catch(abandon);
  const browser = await chromium
    .launch({
      executablePath: CHROMIUM,
      // Playwright's handlers would keep a worker that shares the browser between files from ending on
      // SIGTERM; its exit handler, which kills the browser, stays.
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    })
    .catch(abandon);
  await mkdir(SCREENSHOTS, { recursive: true });
  let seeding: Promise<{ nc: NatsConnection; store: Store }> | undefined;
  const service: ConsoleService = {
    base,
    ns,
    cliEnv: { NATS_URL: nats.url, WF_NAMESPACE: ns, WF_DATA_DIR: dataDir },
    browser,
    output: () => out,
    store: async () => {
      seeding ??= connectNats(nats.url, "browser-test-fixtures").then(async (nc) => ({
        nc,
        store: await openConfiguredStore({ WF_NAMESPACE: ns, MONGODB_DATABASE: "wf" }, nc),
      }));
      return (await seeding).store;
    },
  };
  const removeDirs = () => {
    for (const dir of [dataDir, nats.storeDir]) rmSync(dir, { recursive: true, force: true, maxRetries: 2 });
  };
  const stop = async () => {
    await browser.close();
    const seeded = await seeding?.catch(() => undefined);
    await seeded?.store.close();
    await seeded?.nc.close();
    if (proc.pid !== undefined && proc.exitCode === null) {
      const exited = new Promise((r) => proc.once("exit", r));
      killGroup(proc.pid, "SIGTERM");
      const late = setTimeout(() => killGroup(proc.pid!, "SIGKILL"), 10_000);
      await exited;
      clearTimeout(late);
      live.delete(proc);
    }
    await nats.stop();
    removeDirs();
  };
  return { service, stop, removeDirs };
}

/**
 * A console service of the file's own (`opts`: its environment, or `npm start`), stopped after the
 * file. Most files share the worker's (useSharedConsoleService).
 */
export function useConsoleService(opts: ServiceOptions): () => ConsoleService {
  let started: Started | undefined;
  beforeAll(async () => {
    started = await startConsoleService(opts);
  }, 180_000);
  afterAll(() => started?.stop(), 30_000);
  return () => {
    if (!started) throw new Error("the console service is not started yet");
    return started.service;
  };
}

/**
 * The console service with a scripted OpenAI-protocol provider (`llm`, its models `oa-*` priced at
 * TEST_LLM_PRICE), started by the first file of a worker that asks and kept for the worker's later
 * files (test/support/worker-wide.ts): a start and stop is seconds of a loaded machine's CPU, paid
 * once per worker rather than once per file. Files stay apart as their tests do: each test signs in
 * as a person of its own and scripts models of its own names.
 */
export function useSharedConsoleService(): { service: () => ConsoleService; llm: () => LlmTestServer } {
  let shared: { started: Started; llm: LlmTestServer } | undefined;
  beforeAll(async () => {
    shared = await keepForWorker(
      "console service",
      async () => {
        // The provider first: the service reads its address from its environment.
        const llm = await LlmTestServer.start("openai");
        const started = await startConsoleService({ env: () => llmEnv(llm) }).catch(async (err: unknown) => {
          await llm.close();
          throw err;
        });
        return { started, llm };
      },
      ({ started }) => started.removeDirs(),
    );
  }, 180_000);
  return {
    service: () => {
      if (!shared) throw new Error("the console service is not started yet");
      return shared.started.service;
    },
    llm: () => {
      if (!shared) throw new Error("the scripted LLM provider is not started yet");
      return shared.llm;
    },
  };
}

export interface Person {
  email: string;
  password: string;
  id: string;
}

const PASSWORD = "correct horse battery staple";

/**
 * A console account, written to the service's store as a fixture: `wf admin user create` would spend
 * a process and two production-cost scrypts (its hash, then the login) on each of the suite's ~60.
 */
export async function createPerson(service: ConsoleService, plan: Plan = "pro"): Promise<Person> {
  const user = await testUserWithPassword(PASSWORD, { plan });
  await (await service.store()).users.create(user);
  return { email: user.email, password: PASSWORD, id: user.id };
}

/** A console account, made as an operator makes one: `wf admin user create`. */
export async function createPersonByCli(service: ConsoleService, plan: Plan = "pro"): Promise<Person> {
  const email = `${uniqueNamespace()}@example.com`;
  const r = await runCli(
    ["admin", "user", "create", "--email", email, "--password", PASSWORD, "--plan", plan, "--json"],
    service.cliEnv,
  );
  if (r.code !== 0) throw new Error(`wf admin user create failed: ${r.stderr}`);
  return { email, password: PASSWORD, id: (JSON.parse(r.stdout) as { id: string }).id };
}

export interface PageOptions {
  viewport?: { width: number; height: number };
  colorScheme?: "light" | "dark";
}

/**
 * A fresh browser context (its own cookies) with a page at 1280×800 unless told otherwise. Every
 * console message of level error and every failed page script is collected: a test can assert none.
 */
export async function openPage(
  service: ConsoleService,
  opts: PageOptions = {},
): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await service.browser.newContext({
    viewport: opts.viewport ?? { width: 1280, height: 800 },
    colorScheme: opts.colorScheme ?? "light",
    baseURL: service.base,
  });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  page.on("pageerror", (e) => errors.push(e.message));
  return { context, page, errors };
}

/**
 * Logs in through the login page, as a person does, and waits for the signed-in frame: its main
 * navigation in the document (a phone shows it only behind the menu button, so not visible).
 */
export async function logIn(page: Page, person: Person): Promise<void> {
  await page.goto("/console/login");
  await page.getByLabel("Email").fill(person.email);
  await page.getByLabel("Password").fill(person.password);
  await page.getByRole("button", { name: "Log in" }).click();
  await page.getByRole("navigation", { name: "Main", includeHidden: true }).waitFor({ state: "attached" });
}

/**
 * A new person logged in on a fresh page of their own. The login page's question whether there is
 * a session is answered 401, which Chromium logs: `errors` starts empty after it.
 */
export async function signedIn(
  service: ConsoleService,
  opts: PageOptions = {},
): Promise<{ person: Person; context: BrowserContext; page: Page; errors: string[] }> {
  const person = await createPerson(service);
  const opened = await openPage(service, opts);
  await logIn(opened.page, person);
  opened.errors.length = 0;
  return { person, ...opened };
}

/**
 * The page's logged errors but the refused requests a test provokes on purpose (`statuses`), and
 * the login page's 401 (Chromium logs every refused request as a console error).
 */
export function unexpectedErrors(errors: string[], statuses: number[] = []): string[] {
  return errors.filter((e) => ![401, ...statuses].some((s) => e.includes(`status of ${s}`)));
}

/**
 * Waits until the canvas has stopped moving: a step selected from elsewhere is brought into view
 * with a short animated pan, and a click made during it lands where the node was a moment before
 * (on a busy machine, on the pane or another step). Still means the same transform 100 ms apart.
 */
export async function whenCanvasStill(page: Page): Promise<void> {
  const transform = () => page.locator(".react-flow__viewport").getAttribute("style");
  await expect
    .poll(
      async () => {
        const before = await transform();
        await new Promise((resolve) => setTimeout(resolve, 100));
        return before === (await transform());
      },
      { timeout: 10_000, interval: 50, message: "the canvas to stop moving" },
    )
    .toBe(true);
}

/**
 * Writes `.tmp/screenshots/<name>.png`: the whole page, or the window only (`fullPage: false`), where what is fixed to
 * the window (a notice) is drawn where a person sees it.
 */
export async function screenshot(page: Page, name: string, opts: { fullPage?: boolean } = {}): Promise<void> {
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: opts.fullPage ?? true });
}

/**
 * A console API call made by the page itself: its session cookie, and the CSRF token from its
 * `wf_csrf` cookie, as the app sends them. For setting up what a test then looks at in the UI.
 */
export async function consoleApi<T>(
  page: Page,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; json: T }> {
  return page.evaluate(
    async ({ method, path, body }) => {
      // Runs in the page; the tests' tsconfig has no DOM types.
      const { document } = globalThis as unknown as { document: { cookie: string } };
      const csrf = document.cookie
        .split(";")
        .map((c) => c.trim())
        .find((c) => c.startsWith("wf_csrf="));
      const response = await fetch(path, {
        method,
        headers: {
          ...(body === undefined ? {} : { "content-type": "application/json" }),
          "x-csrf-token": csrf?.slice("wf_csrf=".length) ?? "",
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      return { status: response.status, json: text === "" ? null : JSON.parse(text) };
    },
    { method, path, body },
  );
}

/**
 * Holds the page's owner event stream (what its live lists follow) until the answered function is called: the stream
 * then starts at the next event, so what happened while it was held reaches the page only by a fetch.
 */
export async function holdOwnerStream(page: Page): Promise<() => void> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  await page.route("**/api/console/events", async (route) => {
    await released;
    await route.continue();
  });
  return release;
}

/** Waits, reading the execution's own event stream from the page, until it has carried an event of `type`. */
export async function eventPublished(page: Page, executionId: string, type: string, timeoutMs = 20_000): Promise<void> {
  await page.evaluate(
    async ({ executionId, type, timeoutMs }) => {
      const stop = new AbortController();
      const timer = setTimeout(() => stop.abort(), timeoutMs);
      let text = "";
      try {
        const response = await fetch(`/api/console/executions/${executionId}/events`, { signal: stop.signal });
        const reader = response.body!.getReader();
        const decoder = new TextDecoder();
        while (!text.includes(`event: ${type}\n`)) {
          const { value, done } = await reader.read();
          if (done) throw new Error(`the stream ended without ${type}:\n${text}`);
          text += decoder.decode(value, { stream: true });
        }
      } catch (err) {
        if (stop.signal.aborted) throw new Error(`no ${type} in ${timeoutMs} ms:\n${text}`);
        throw err;
      } finally {
        clearTimeout(timer);
        stop.abort();
      }
    },
    { executionId, type, timeoutMs },
  );
}

/** A workflow stored through the console API, as the editor stores it; answers its id. */
export async function createWorkflow(page: Page, yaml: string): Promise<string> {
  const created = await consoleApi<{ id: string }>(page, "POST", "/api/console/workflows", { yaml });
  expect(created.status, JSON.stringify(created.json)).toBe(201);
  return created.json.id;
}

/**
 * Starts the workflow through the console API, as its Run button does (`body`: variables, debug); answers the
 * execution's id.
 */
export async function startExecution(
  page: Page,
  workflowId: string,
  body: Record<string, unknown> = {},
): Promise<string> {
  const started = await consoleApi<{ executionId: string }>(
    page,
    "POST",
    `/api/console/workflows/${workflowId}/executions`,
    body,
  );
  expect(started.status, JSON.stringify(started.json)).toBe(202);
  return started.json.executionId;
}

/** Polls the console's view of the execution until its status is `status`, for at most `timeoutMs`. */
export async function untilStatus(page: Page, executionId: string, status: string, timeoutMs = 30_000): Promise<void> {
  await expect
    .poll(
      async () =>
        (await consoleApi<{ status: string }>(page, "GET", `/api/console/executions/${executionId}`)).json.status,
      { timeout: timeoutMs, interval: 250 },
    )
    .toBe(status);
}

/**
 * A workflow that fails for a rerun to mend: `ask`, an llm step on a model of its own scripted to
 * use 1,500 tokens, then `check`, a JavaScript step that throws while the variable `fail` is true
 * (its default). A rerun from `check` with `fail: false` reuses `ask` and completes.
 */
export async function createRerunWorkflow(
  page: Page,
  llm: LlmTestServer,
  name: string,
): Promise<{ workflowId: string; model: string }> {
  const model = `oa-${uniqueNamespace()}`;
  llm.script(model, { text: "The ticket is about billing.", usage: { prompt: 1200, completion: 300 } });
  const workflowId = await createWorkflow(
    page,
    `
name: ${name}
variables:
  fail: { type: boolean, default: true }
steps:
  - { name: ask, type: llm, model: ${model}, prompt: Summarise the ticket }
  - name: check
    type: code
    language: javascript
    code: |
      if (vars.fail) throw new Error("the check failed");
      return "checked";
`,
  );
  return { workflowId, model };
}

/** USD per million tokens of the `oa-*` models the scripted provider of useSharedConsoleService serves. */
export const TEST_LLM_PRICE = { input: 2, output: 8 };

/** The service's environment for the scripted provider `llm`: its `oa-*` models at TEST_LLM_PRICE. */
function llmEnv(llm: LlmTestServer): Record<string, string> {
  return {
    WF_LLM_PROVIDERS: JSON.stringify([
      {
        name: "test-openai",
        protocol: "openai",
        baseUrl: llm.baseUrl,
        models: ["oa-*"],
        apiKey: "sk-test-browser",
        maxRetries: 0,
      },
    ]),
    WF_LLM_PRICES: JSON.stringify({ "oa-*": TEST_LLM_PRICE }),
  };
}
