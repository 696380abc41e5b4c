import { execFile } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { natsServerBin, waitFor } from "@wf/testing";
import { ASSETS, entries } from "../../scripts/build/entries";
import { opsBase } from "../support/processes";
import { uniqueNamespace } from "../support/runtime";
import { commandLine, descendants, outputMatch, ROOT, startBuilt, type BuiltProcess } from "./built-process";

/*
 * `npm run build`, then the service as the image runs it: `node dist/all-in-one.js`, plain node
 * with no loader, and the built CLI. A workflow with JavaScript and Python code steps runs to
 * COMPLETED through the API, in sandbox runners forked from dist/ as well.
 */
const WORKFLOW = `
name: built
steps:
  - name: js
    type: code
    language: javascript
    code: "return { sum: input.a + input.b };"
    input: { a: 2, b: 3 }
  - name: py
    type: code
    language: python
    code: |
      import json, sys
      print(json.dumps({"python": sys.version_info[0]}))
`;

let dir: string;
let service: BuiltProcess;
let base: string;
const ns = uniqueNamespace();
const env = () => ({ WF_DATA_DIR: join(dir, "data"), WF_NAMESPACE: ns });

async function wf(args: string[]): Promise<string> {
  const cli = startBuilt("dist/wf.js", args, env());
  const code = await cli.exited;
  expect(code, `wf ${args.join(" ")}:\n${cli.output()}`).toBe(0);
  return cli.output();
}

beforeAll(async () => {
  await promisify(execFile)("npm", ["run", "build"], { cwd: ROOT, timeout: 240_000 }).catch(
    (err: { stdout?: string; stderr?: string }) => {
      throw new Error(`npm run build failed:\n${err.stdout ?? ""}\n${err.stderr ?? ""}`);
    },
  );
  dir = await mkdtemp(join(tmpdir(), "wf-built-"));
  service = startBuilt("dist/all-in-one.js", [], {
    ...env(),
    PORT: "0",
    HOST: "127.0.0.1",
    // Other processes of the test run hold the default ops port.
    WF_OPS_PORT: "0",
    NATS_SERVER_BIN: natsServerBin(),
  });
  base = (await outputMatch(service, /\[wf\] ready: edge on (http:\/\/\S+),/))[1]!;
}, 300_000);

afterAll(async () => {
  await service?.stop();
  if (dir) await rm(dir, { recursive: true, force: true, maxRetries: 2 });
});

describe("npm run build", () => {
  it("writes every entry point and asset into dist/", () => {
    for (const { out } of [...entries(ROOT), ...ASSETS]) expect(existsSync(join(ROOT, "dist", out)), out).toBe(true);
  });

  it("stamps dist/ with its sources' digest, so that npm start runs it without building again", async () => {
    const stamp = readFileSync(join(ROOT, "dist/.source-digest"), "utf8").trim();
    expect(stamp).toMatch(/^[0-9a-f]{64}$/);
    const built = statSync(join(ROOT, "dist/all-in-one.js")).mtimeMs;
    // What npm start's prestart runs.
    const { stderr } = await promisify(execFile)(process.execPath, ["scripts/ensure-service-build.mjs"], {
      cwd: ROOT,
      timeout: 240_000,
    });
    expect(stderr).not.toContain("building dist/");
    expect(statSync(join(ROOT, "dist/all-in-one.js")).mtimeMs).toBe(built);
    expect(readFileSync(join(ROOT, "dist/.source-digest"), "utf8").trim()).toBe(stamp);
  }, 240_000);

  it("runs the service from dist/ with plain node: the API, a workflow to COMPLETED, the console", async () => {
    const user = JSON.parse(
      await wf([
        "admin",
        "user",
        "create",
        "--email",
        `${ns}@example.com`,
        "--password",
        "a long password",
        "--plan",
        "pro",
        "--json",
      ]),
    ) as {
      id: string;
    };
    const { key } = JSON.parse(
      await wf(["admin", "key", "create", "--user", user.id, "--scopes", "WORKFLOW_EXECUTE,EXECUTION_READ", "--json"]),
    ) as {
      key: string;
    };
    const file = join(dir, "built.yaml");
    await writeFile(file, WORKFLOW);
    const workflow = JSON.parse(await wf(["workflow", "import", file, "--user", user.id, "--json"])) as { id: string };

    const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
    const started = await fetch(`${base}/api/v1/workflows/${workflow.id}/executions`, {
      method: "POST",
      headers,
      body: "{}",
    });
    expect(started.status).toBe(202);
    const { executionId } = (await started.json()) as { executionId: string };
    let status = "";
    await waitFor(
      async () => {
        status = (
          (await (await fetch(`${base}/api/v1/executions/${executionId}`, { headers })).json()) as { status: string }
        ).status;
        return status === "COMPLETED" || status === "FAILED";
      },
      { timeoutMs: 30_000, what: `execution ${executionId} to end (${status})` },
    );
    const result = (await (
      await fetch(`${base}/api/v1/executions/${executionId}/result`, { headers })
    ).json()) as unknown;
    expect(status, JSON.stringify(result)).toBe("COMPLETED");
    expect(JSON.stringify(result)).toContain('"sum":5');
    expect(JSON.stringify(result)).toContain('"python":3');

    // What the deployments' probes ask.
    const ops = opsBase(service);
    expect((await fetch(`${ops}/readyz`)).status).toBe(200);
    expect((await fetch(`${ops}/healthz`)).status).toBe(200);

    const page = await fetch(`${base}/console/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("<html");
  });

  it("loads no TypeScript tooling: the service, the sandbox runners it forked and their JavaScript hosts run built files with plain node", () => {
    expect(commandLine(service.pid)).toEqual([process.execPath, "dist/all-in-one.js"]);
    const children = descendants(service.pid).flatMap((pid) => {
      try {
        return [commandLine(pid).join(" ")];
      } catch {
        return [];
      }
    });
    const runners = children.filter((c) => c.includes("sandbox-process"));
    expect(runners.length, children.join("\n")).toBeGreaterThan(0);
    for (const runner of runners) expect(runner).toContain(join(ROOT, "dist/sandbox-process.js"));
    const hosts = children.filter((c) => c.includes("js-host-process"));
    expect(hosts.length, children.join("\n")).toBe(runners.length);
    for (const host of hosts) expect(host).toContain(join(ROOT, "dist/js-host-process.js"));
    for (const child of children) expect(child).not.toMatch(/tsx|\.ts\b/);
  });
});
