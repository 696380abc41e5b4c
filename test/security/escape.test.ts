import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, readdirSync, statSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ExecutionResult } from "@wf/shared/api";
import { loadConfig } from "@wf/shared/config";
import { newId } from "@wf/shared/execution";
import { natsServerBin, sleepers, sleepMarker, waitFor } from "@wf/testing";
import { isAlive, runDirs } from "@wf/executor/testing";
import { LlmTestServer } from "../ai/support/llm-server";
import { uniqueNamespace } from "../support/runtime";
import { hostFacts, hostUid, type HostFacts } from "./host-facts";
import {
  bash,
  hostPids,
  isolate,
  luaScripts,
  probeLines,
  python,
  ruby,
  type Probe,
  type Targets,
} from "./probe-scripts";
import { ServiceClient, type ServiceUser } from "./service-client";
import { startTargetServer, type TargetServer } from "./target-server";
import { startServiceInTerminal, type TerminalService } from "./terminal-service";

/**
 * The escape corpus: what a workflow author could try from a code step, in every language,
 * against the service as an operator runs it (`npm start` in a terminal, its own nats-server
 * with credentials, its data directory), driven as a user drives it (`wf` for accounts and
 * workflows, the v1 API to run them). Each probe asserts what the step saw; the host then checks
 * that nothing it guards moved.
 */

const id = newId().slice(-10);
const canarySecret = `canary-file-${randomBytes(12).toString("hex")}`;
const envSecret = `canary-env-${randomBytes(12).toString("hex")}`;
const canaryPath = `/tmp/wf-escape-canary-${id}`;
const writeName = `wf-escape-written-${id}`;
const firstSandboxUid = loadConfig({}).WF_SANDBOX_UIDS.first;
const REPO = fileURLToPath(new URL("../../", import.meta.url));
const MCP_PROBE_SERVER = fileURLToPath(new URL("./mcp-probe-server.mts", import.meta.url));
/** By absolute URL: the server's working directory in the sandbox has no node_modules above it. */
const TSX_LOADER = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;

let scratch: string;
let service: TerminalService;
let host: HostFacts;
let client: ServiceClient;
let owner: ServiceUser;
/** Another user, for steps of two owners at once. */
let stranger: ServiceUser;
let allowed: TargetServer;
let other: TargetServer;
let targets: Targets;
let llm: LlmTestServer;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), "wf-escape-"));
  const dataDir = join(scratch, "data");
  await mkdir(dataDir);
  await writeFile(canaryPath, canarySecret, { mode: 0o644 });
  allowed = await startTargetServer("allowed");
  other = await startTargetServer("other");
  llm = await LlmTestServer.start("openai");
  const ns = uniqueNamespace();
  service = await startServiceInTerminal({
    WF_DATA_DIR: dataDir,
    WF_NAMESPACE: ns,
    PORT: "0",
    NATS_SERVER_BIN: natsServerBin(),
    // One port of one loopback address of the host: the test's allowed server, nothing else.
    WF_EGRESS_ALLOW: allowed.address,
    WF_TEST_CANARY: envSecret,
    // A model to drive an agent, and what its stdio MCP server needs: its command allowed, and
    // Node's, tsx's and the SDK's files (node_modules) and its own readable, nothing more.
    WF_LLM_PROVIDERS: JSON.stringify([{ name: "test", protocol: "openai", baseUrl: llm.baseUrl, apiKey: "sk-test" }]),
    WF_MCP_STDIO_ALLOW: process.execPath,
    WF_SANDBOX_READ_ONLY: [join(REPO, "node_modules"), join(REPO, "test/security")].join(","),
  });
  host = await hostFacts(dataDir, service.pid, service.output());
  client = new ServiceClient(host.edge, { WF_DATA_DIR: dataDir, WF_NAMESPACE: ns }, scratch);
  [owner, stranger] = await Promise.all([client.createUser(), client.createUser()]);
  targets = { host, canaryPath, email: owner.email, allowed, other, writeName };
});

afterAll(async () => {
  await service?.stop();
  await allowed?.close();
  await other?.close();
  await llm?.close();
  await rm(canaryPath, { force: true });
  if (scratch) await rm(scratch, { recursive: true, force: true, maxRetries: 2 });
});

type Step = Record<string, unknown>;

const code = (name: string, language: string, source: string, extra: Step = {}): Step => ({
  name,
  type: "code",
  language,
  code: source,
  timeout: 20,
  ...extra,
});

/** Imports the steps as one workflow of the owner's and runs it once through the API. */
async function runSteps(label: string, steps: Step[]): Promise<ExecutionResult & { id: string }> {
  const workflowId = await client.importWorkflow(owner, { name: `escape ${label} ${id}`, steps });
  const executionId = await client.start(owner, workflowId);
  return { ...(await client.result(owner, executionId)), id: executionId };
}

function outputOf(result: ExecutionResult, step: string): unknown {
  const r = result.stepResults[step];
  expect(r?.status, `${step}: ${r?.error ?? "no result"}`).toBe("COMPLETED");
  return r!.output;
}

const probesOf = (result: ExecutionResult, step: string): Record<string, Probe> => probeLines(outputOf(result, step));
const reportOf = (result: ExecutionResult, step: string): Record<string, unknown> =>
  outputOf(result, step) as Record<string, unknown>;

/** No secret of the host's, in any form the API shows: output, errors, logs, artifacts. */
function expectNothingLeaked(seen: unknown): void {
  const text = JSON.stringify(seen);
  for (const secret of [canarySecret, envSecret, owner.key, stranger.key, ...host.storedSecrets])
    expect(text).not.toContain(secret);
}

const noSuchFile = (command: string, path: string): Probe => ({
  rc: 1,
  out: `${command}: ${path}: No such file or directory`,
});
const cannotAccess = (path: string): Probe => ({
  rc: 2,
  out: `ls: cannot access '${path}': No such file or directory`,
});
const refused = (reason: string): Probe => ({
  rc: 0,
  out: `egress refused: ${reason} (allow it with WF_EGRESS_ALLOW) HTTP 403`,
});
const connectionRefused = expect.objectContaining({ rc: 1, out: expect.stringContaining("Connection refused") });
const unreachable = expect.objectContaining({ rc: 1, out: expect.stringContaining("Network is unreachable") });
const noSuchProcess = (pid: number | string) =>
  expect.objectContaining({ rc: 1, out: expect.stringContaining(`kill: (${pid}) - No such process`) });

/** The step's own processes only: a handful of small pids, none of the host's. */
function expectOwnPids(pids: number[]): void {
  expect(pids.length).toBeGreaterThan(0);
  expect(pids.length).toBeLessThan(10);
  for (const pid of pids) expect(pid).toBeLessThan(64);
  for (const pid of hostPids(targets)) expect(pids).not.toContain(pid);
}

/** /root holds at most the interpreters' prefixes the executor lists as readable (a pyenv Python). */
function expectRootHoldsInterpretersOnly(entries: string[]): void {
  const allowedUnderRoot = host.readable.filter((p) => p.startsWith("/root/")).map((p) => p.split("/")[2]);
  for (const entry of entries) expect(allowedUnderRoot).toContain(entry);
}

async function expectServiceUp(): Promise<void> {
  for (const pid of hostPids(targets)) expect(isAlive(pid), `host process ${pid}`).toBe(true);
  expect((await fetch(new URL("/api/v1/openapi.json", host.edge))).status).toBe(200);
}

async function expectHostUntouched(): Promise<void> {
  for (const path of [
    join("/tmp", writeName),
    join(host.repo, writeName),
    join(host.dataDir, writeName),
    join("/usr", writeName),
    join("/", writeName),
  ]) {
    expect(existsSync(path), path).toBe(false);
  }
  expect(await readFile(canaryPath, "utf8")).toBe(canarySecret);
}

describe("the escape corpus: code steps against `npm start`, as a user runs them", () => {
  it("bash: reads nothing of the service, the store, the host or the repository; signals, cgroups, writes and the network all fail", async () => {
    // The bait is real: the store's files on the host hold the user's email in plain text.
    expect(execFileSync("grep", ["-rl", owner.email, join(host.dataDir, "nats")], { encoding: "utf8" })).not.toBe("");
    const hits = { allowed: allowed.hits(), other: other.hits() };
    const result = await runSteps("bash", [
      code("files", "bash", bash.files(targets)),
      code("processes", "bash", bash.processes(targets)),
      code("writes", "bash", bash.writes(targets)),
      code("offline", "bash", bash.offline(targets)),
      code("proxied", "bash", bash.proxied(targets), { network: true }),
      code("allow_list", "bash", bash.allowList(targets), { network: { allow: [allowed.address] } }),
      code("narrowed", "bash", bash.allowList(targets), { network: { allow: [other.address] } }),
    ]);
    expectNothingLeaked(result);
    const d = host.dataDir;

    const files = probesOf(result, "files");
    expect(Number(files.uid!.out)).toBeGreaterThanOrEqual(1000);
    expect(files).toMatchObject({
      keys: noSuchFile("cat", `${d}/keys.json`),
      credentials: noSuchFile("cat", `${d}/nats-credentials.json`),
      store: { rc: 2, out: `grep: ${d}/nats: No such file or directory` },
      data_dir: cannotAccess(d),
      canary: noSuchFile("cat", canaryPath),
      tmp: { rc: 0, out: "" },
      repo_package: noSuchFile("cat", `${host.repo}/package.json`),
      repo_git: cannotAccess(`${host.repo}/.git`),
      shadow: noSuchFile("cat", "/etc/shadow"),
      mysql_ls: cannotAccess("/run/mysqld/mysqld.sock"),
      postgres_ls: cannotAccess("/var/run/postgresql/.s.PGSQL.5432"),
      // curl's "could not connect": the socket paths do not exist in the step's view.
      mysql: expect.objectContaining({ rc: 7 }),
      postgres: expect.objectContaining({ rc: 7 }),
    });
    expectRootHoldsInterpretersOnly(files.root!.out.split(" ").filter(Boolean));
    // Of the host's top-level directories, the step sees only those the sandbox is made of.
    const sandboxTop = new Set([
      "bin",
      "sbin",
      "lib",
      "lib32",
      "lib64",
      "libx32",
      "usr",
      "etc",
      "dev",
      "proc",
      "tmp",
      "run",
      "root",
      files.home!.out.split("/")[1],
    ]);
    for (const p of host.readable) sandboxTop.add(p.split("/")[1]!);
    const hostOnly = readdirSync("/").filter((e) => !sandboxTop.has(e));
    expect(hostOnly.length).toBeGreaterThan(0);
    for (const entry of files.top!.out.split(" ")) expect(hostOnly).not.toContain(entry);

    const processes = probesOf(result, "processes");
    expectOwnPids(processes.pids!.out.split(" ").map(Number));
    for (const pid of hostPids(targets)) {
      expect(processes[`environ ${pid}`]).toEqual(noSuchFile("cat", `/proc/${pid}/environ`));
      expect(processes[`cmdline ${pid}`]).toEqual(noSuchFile("cat", `/proc/${pid}/cmdline`));
      expect(processes[`kill -0 ${pid}`]).toEqual(noSuchProcess(pid));
    }
    expect(processes).toMatchObject({
      "kill -9 nats": noSuchProcess(host.natsPid),
      "kill -9 service": noSuchProcess(host.servicePid),
      "kill -9 -1": noSuchProcess(-1),
      environ_scan: { rc: 0, out: "" },
      sys: cannotAccess("/sys"),
      "pids.max": expect.objectContaining({
        rc: 1,
        out: expect.stringContaining("/sys/fs/cgroup/pids/pids.max: No such file or directory"),
      }),
      "memory.limit": expect.objectContaining({ rc: 1, out: expect.stringContaining("No such file or directory") }),
    });
    // Its cgroup namespace: its own cgroups are the root of every hierarchy it can name.
    for (const line of processes.cgroup!.out.split(" ")) expect(line).toMatch(/:\/$/);
    await expectServiceUp();

    const writes = probesOf(result, "writes");
    expect(writes).toMatchObject({
      // Its /tmp is its own: the write lands there, and the host's /tmp never shows it.
      write_tmp: { rc: 0, out: "" },
      tmp_after: { rc: 0, out: writeName },
      // Of the repository, steps see only what the operator made readable (node_modules and this
      // folder, for the MCP server below), read-only.
      write_repo: expect.objectContaining({ rc: 1, out: expect.stringMatching(/Read-only file system$/) }),
      write_data: expect.objectContaining({ rc: 1, out: expect.stringMatching(/No such file or directory$/) }),
      write_usr: expect.objectContaining({ rc: 1, out: expect.stringMatching(/Read-only file system$/) }),
      write_root: expect.objectContaining({ rc: 1, out: expect.stringMatching(/Read-only file system$/) }),
    });
    await expectHostUntouched();

    expect(probesOf(result, "offline")).toMatchObject({
      proxy_env: { rc: 1, out: "" },
      nats_tcp: connectionRefused,
      edge_tcp: connectionRefused,
      allowed_tcp: connectionRefused,
      private_tcp: unreachable,
      edge_http: expect.objectContaining({
        rc: 7,
        out: expect.stringContaining(`Failed to connect to 127.0.0.1 port ${host.edgePort}`),
      }),
      allowed_http: expect.objectContaining({
        rc: 7,
        out: expect.stringContaining(`Failed to connect to 127.0.0.2 port ${allowed.port}`),
      }),
      dns: { rc: 2, out: "" },
    });

    const proxied = probesOf(result, "proxied");
    expect(proxied).toMatchObject({
      proxy_env: { rc: 0, out: "http://127.0.0.1:3128" },
      // NO_PROXY sends 127.0.0.1 to the step's own loopback, where nothing listens.
      edge_direct: expect.objectContaining({ rc: 7 }),
      edge_proxy: refused("127.0.0.1 is a loopback address"),
      nats_connect: expect.objectContaining({
        rc: 56,
        out: expect.stringContaining("CONNECT tunnel failed, response 403"),
      }),
      localhost_proxy: refused("localhost resolves to a loopback address"),
      private: refused("10.255.255.1 is a private address"),
      metadata: refused("169.254.169.254 is the cloud metadata address"),
      other: expect.objectContaining({ rc: 0, out: expect.stringMatching(/^egress refused: .* HTTP 403$/) }),
      allowed: { rc: 0, out: "reached allowed HTTP 200" },
      nats_tcp: connectionRefused,
      edge_tcp: connectionRefused,
      allowed_tcp: connectionRefused,
      private_tcp: unreachable,
    });
    if (host.ownAddress)
      expect(proxied.own_address).toMatchObject({ rc: 0, out: expect.stringMatching(/^egress refused: .* HTTP 403$/) });

    expect(probesOf(result, "allow_list")).toMatchObject({
      allowed: { rc: 0, out: "reached allowed HTTP 200" },
      other: expect.objectContaining({ out: expect.stringMatching(/^egress refused: .* HTTP 403$/) }),
      edge_proxy: expect.objectContaining({ out: expect.stringMatching(/^egress refused: .* HTTP 403$/) }),
    });
    // A step's list narrows what the operator allows, and widens nothing.
    expect(probesOf(result, "narrowed")).toMatchObject({
      allowed: expect.objectContaining({
        out: expect.stringMatching(
          new RegExp(
            `^egress refused: 127\\.0\\.0\\.2:${allowed.port} is not in the workflow's network\\.allow list HTTP 403$`,
          ),
        ),
      }),
      other: refused("127.0.0.2 is a loopback address"),
      edge_proxy: expect.objectContaining({ out: expect.stringMatching(/^egress refused: .* HTTP 403$/) }),
    });
    expect({ allowed: allowed.hits() - hits.allowed, other: other.hits() - hits.other }).toEqual({
      allowed: 2,
      other: 0,
    });

    // Every refusal is in the step's log and published as a step_egress_refused event.
    const expectedRefusals: Record<string, string[]> = {
      proxied: [
        `127.0.0.1:${host.edgePort}`,
        `127.0.0.1:${host.natsPort}`,
        `localhost:${host.edgePort}`,
        "10.255.255.1:80",
        "169.254.169.254:80",
        `127.0.0.2:${other.port}`,
        ...(host.ownAddress ? [`${host.ownAddress}:${host.edgePort}`] : []),
      ],
      allow_list: [`127.0.0.2:${other.port}`, `127.0.0.1:${host.edgePort}`],
      narrowed: [`127.0.0.2:${allowed.port}`, `127.0.0.2:${other.port}`, `127.0.0.1:${host.edgePort}`],
    };
    for (const [step, destinations] of Object.entries(expectedRefusals)) {
      const logged = (result.stepResults[step]!.logs ?? [])
        .filter((l) => l.startsWith("[network] refused "))
        .map((l) => l.split(" ")[2]!.replace(/:$/, ""));
      expect(logged.sort(), step).toEqual([...destinations].sort());
    }
    const events = await client.events(result.id, "step_egress_refused", Object.values(expectedRefusals).flat().length);
    for (const [step, destinations] of Object.entries(expectedRefusals)) {
      const published = events
        .filter((e) => e.step === step)
        .map((e) => `${String(e.data.host)}:${String(e.data.port)}`);
      expect(published.sort(), step).toEqual([...destinations].sort());
    }
  });

  it("python: files, processes, TCP and Unix sockets, ptrace, namespaces, mounts and cgroups all fail", async () => {
    const result = await runSteps("python", [
      code("local", "python", python.local(targets)),
      code("proxied", "python", python.proxied(targets), { network: true }),
    ]);
    expectNothingLeaked(result);
    const seen = reportOf(result, "local");
    expect(seen.uid).toBeGreaterThanOrEqual(1000);
    expect(seen).toMatchObject({
      keys: "ENOENT",
      credentials: "ENOENT",
      canary: "ENOENT",
      repo_package: "ENOENT",
      shadow: "ENOENT",
      data_dir: "ENOENT",
      store: "ENOENT",
      repo_git: "ENOENT",
      tmp: [],
      environ_scan: [],
      "tcp nats": "ECONNREFUSED",
      "tcp edge": "ECONNREFUSED",
      "tcp allowed": "ECONNREFUSED",
      "tcp private": "ENETUNREACH",
      mysql: "ENOENT",
      postgres: "ENOENT",
      // The seccomp filter: ptrace even of its own child, user namespaces, mounts; clone3 (whose
      // flags it cannot read) answers ENOSYS so that libc falls back to clone, which it checks.
      "ptrace traceme": "EPERM",
      "ptrace child": "EPERM",
      "ptrace service": "EPERM",
      "unshare user": "EPERM",
      mount: "EPERM",
      clone3: "ENOSYS",
      "setuid 0": "EPERM",
      "pids.max": "ENOENT",
      "write repo": "EROFS",
      "write data": "ENOENT",
    });
    expectRootHoldsInterpretersOnly(seen.root as string[]);
    expectOwnPids(seen.pids as number[]);
    for (const pid of hostPids(targets)) {
      expect(seen, `pid ${pid}`).toMatchObject({
        [`environ ${pid}`]: "ENOENT",
        [`cmdline ${pid}`]: "ENOENT",
        [`kill ${pid}`]: "ESRCH",
      });
    }
    for (const line of String(seen.cgroup)
      .replace(/^read /, "")
      .trim()
      .split("\n"))
      expect(line).toMatch(/:\/$/);

    expect(reportOf(result, "proxied")).toEqual({
      "tcp nats": "ECONNREFUSED",
      "tcp edge": "ECONNREFUSED",
      "tcp private": "ENETUNREACH",
      "proxy edge": "HTTP/1.1 403 Forbidden",
      "proxy nats": "HTTP/1.1 403 Forbidden",
    });
    await expectHostUntouched();
  });

  it("ruby: files, processes, TCP and Unix sockets all fail", async () => {
    const result = await runSteps("ruby", [
      code("local", "ruby", ruby.local(targets)),
      code("proxied", "ruby", ruby.proxied(targets), { network: true }),
    ]);
    expectNothingLeaked(result);
    const seen = reportOf(result, "local");
    expect(seen.uid).toBeGreaterThanOrEqual(1000);
    expect(seen).toMatchObject({
      keys: "ENOENT",
      credentials: "ENOENT",
      canary: "ENOENT",
      repo_package: "ENOENT",
      shadow: "ENOENT",
      data_dir: "ENOENT",
      repo_git: "ENOENT",
      tmp: [],
      "tcp nats": "ECONNREFUSED",
      "tcp edge": "ECONNREFUSED",
      "tcp private": "ENETUNREACH",
      mysql: "ENOENT",
      postgres: "ENOENT",
    });
    expectRootHoldsInterpretersOnly(seen.root as string[]);
    expectOwnPids(seen.pids as number[]);
    for (const pid of hostPids(targets))
      expect(seen, `pid ${pid}`).toMatchObject({ [`environ ${pid}`]: "ENOENT", [`kill ${pid}`]: "ESRCH" });
    expect(reportOf(result, "proxied")).toEqual({
      "tcp nats": "ECONNREFUSED",
      "tcp edge": "ECONNREFUSED",
      "proxy edge": "403 egress refused: 127.0.0.1 is a loopback address (allow it with WF_EGRESS_ALLOW)",
    });
  });

  it("lua: files and directories of the service and the host are not there", async () => {
    const result = await runSteps("lua", [code("local", "lua", luaScripts.local(targets))]);
    expectNothingLeaked(result);
    const seen = reportOf(result, "local") as Record<string, string>;
    expect(Number(seen.uid)).toBeGreaterThanOrEqual(1000);
    const d = host.dataDir;
    expect(seen).toMatchObject({
      keys: `${d}/keys.json: No such file or directory`,
      credentials: `${d}/nats-credentials.json: No such file or directory`,
      canary: `${canaryPath}: No such file or directory`,
      repo_package: `${host.repo}/package.json: No such file or directory`,
      shadow: "/etc/shadow: No such file or directory",
      data_dir: `ls: cannot access '${d}': No such file or directory`,
      tmp: "",
    });
    expectRootHoldsInterpretersOnly(seen.root!.split(" ").filter(Boolean));
    expectOwnPids(seen.pids!.split(" ").map(Number));
    for (const pid of hostPids(targets))
      expect(seen[`environ ${pid}`]).toBe(`/proc/${pid}/environ: No such file or directory`);
  });

  it("cli: `ls` lists the sandbox, not the host; `cat` finds none of the service's files", async () => {
    const secretFiles = [
      `${host.dataDir}/keys.json`,
      `${host.dataDir}/nats-credentials.json`,
      canaryPath,
      `${host.repo}/package.json`,
      "/etc/shadow",
      `/proc/${host.servicePid}/environ`,
      `/proc/${host.natsPid}/cmdline`,
    ];
    const result = await runSteps("cli", [
      { name: "list", type: "code", language: "cli", command: ["ls", "-A", "/root", "/tmp", "/run"] },
      { name: "read", type: "code", language: "cli", command: ["cat", ...secretFiles] },
    ]);
    expectNothingLeaked(result);
    // `ls` prints each directory as "<path>:" and its entries, a blank line between them.
    const listing = new Map(
      String(outputOf(result, "list"))
        .split("\n\n")
        .map((block) => block.split("\n"))
        .map(([head, ...entries]) => [head!.replace(/:$/, ""), entries]),
    );
    expectRootHoldsInterpretersOnly(listing.get("/root")!);
    // /run holds only the (emptied) mount point of the zygote's own files: no host socket.
    expect({ tmp: listing.get("/tmp"), run: listing.get("/run") }).toEqual({ tmp: [], run: ["wf"] });
    expect(result.stepResults.read).toMatchObject({ status: "FAILED" });
    expect(result.stepResults.read!.error).toBe(
      `step \`read\`: exited with code 1: ${secretFiles.map((f) => `cat: ${f}: No such file or directory`).join("\n")}`,
    );
  });

  it("javascript and typescript: no host object, module or network in the isolate; artifacts stay beneath their directory", async () => {
    const result = await runSteps("isolate", [
      code("js", "javascript", isolate.javascript),
      code("ts", "typescript", isolate.typescript),
    ]);
    expectNothingLeaked(result);
    const absent = {
      process: "undefined",
      require: "undefined",
      module: "undefined",
      fetch: "undefined",
      XMLHttpRequest: "undefined",
      WebSocket: "undefined",
      Deno: "undefined",
      Bun: "undefined",
    };
    const notRelative = (path: string) => `Error: artifact path "${path}" is not a relative file path`;
    expect(reportOf(result, "js")).toEqual({
      ...absent,
      functionConstructor: "undefined",
      // Lockdown tames Function.prototype.constructor: a host callback's constructor makes nothing.
      callbackConstructor: "TypeError: Function.prototype.constructor is not a valid constructor.",
      // isolated-vm has no module loader for a script: no import reaches the host's modules.
      dynamicImport: "Error: Not supported",
      "write ../escape.txt": notRelative("../escape.txt"),
      "write /tmp/escape.txt": notRelative("/tmp/escape.txt"),
      "write a/../../escape.txt": notRelative("a/../../escape.txt"),
    });
    expect(reportOf(result, "ts")).toEqual({
      ...absent,
      functionConstructor: "undefined",
      dynamicImport: "Error: Not supported",
      "write ../escape.txt": notRelative("../escape.txt"),
    });
    expect(await client.artifacts(owner, result.id)).toEqual([
      { step: "js", path: "inside.txt", content: "written inside" },
    ]);
  });

  it("artifacts: links out of the directory, hard links and files swapped for links while the step ends are never read", async () => {
    const result = await runSteps("artifacts", [
      code("links", "bash", bash.artifactLinks(targets)),
      code("replaced", "bash", bash.artifactsReplaced()),
    ]);
    expectNothingLeaked(result);
    expect(probesOf(result, "links")).toMatchObject({
      hard_passwd: expect.objectContaining({ rc: 1, out: expect.stringContaining("Invalid cross-device link") }),
      hard_bash: expect.objectContaining({ rc: 1, out: expect.stringContaining("Invalid cross-device link") }),
      hard_own: { rc: 0, out: "" },
    });
    // The swapping loops ran until the step ended.
    expect(probesOf(result, "links").swapping!.out.split(" ").length).toBeGreaterThan(4);
    // It did replace it (whether the step then completes or fails for its missing directory).
    expect(result.stepResults.replaced!.logs).toContain("replaced");

    const artifacts = await client.artifacts(owner, result.id);
    expectNothingLeaked(artifacts);
    // The whole directory swapped for a link to the zygote's files: nothing is read through it.
    expect(artifacts.filter((a) => a.step === "replaced")).toEqual([]);
    const byPath = new Map(artifacts.map((a) => [a.path, a.content]));
    expect(byPath.get("own.txt")).toBe("own artifact\n");
    // A hard link to the step's own file is its own content.
    expect(byPath.get("outside-hard")).toBe("own outside\n");
    for (const [path, content] of byPath) {
      expect(path).toMatch(/^(own\.txt|outside-hard|swap\d|\.file\d)$/);
      // Empty when the step ended between a file's creation and its write.
      if (/swap|file/.test(path)) expect(content).toMatch(/^(swap-own-\d\n)?$/);
    }
  });

  it("two owners at once: another owner's step sees none of the first's processes, files or environment, and runs as another uid", async () => {
    const holderMarker = sleepMarker();
    const proberMarker = sleepMarker();
    const token = `token-${randomBytes(16).toString("hex")}`;
    const [holderWorkflow, proberWorkflow] = await Promise.all([
      client.importWorkflow(owner, {
        name: `escape holder ${id}`,
        variables: { token: { type: "string", required: true } },
        steps: [code("hold", "python", python.holder(holderMarker), { timeout: 60 })],
      }),
      client.importWorkflow(stranger, {
        name: `escape prober ${id}`,
        variables: { target: { type: "object", required: true } },
        steps: [code("probe", "python", python.prober(proberMarker), { timeout: 60 })],
      }),
    ]);
    const holderExecution = await client.start(owner, holderWorkflow, { token });
    const [holderPid] = await waitFor(() => sleepers(holderMarker).length === 1 && sleepers(holderMarker), {
      timeoutMs: 20_000,
      what: "the holder's sleep",
    });
    // The secret is there to be found: in the holder's environment, as the host sees it.
    expect(await readFile(`/proc/${holderPid}/environ`, "utf8")).toContain(token);
    const holderUid = hostUid(holderPid!);
    // The holder's directory, as the host reaches it (in its zygote's memory), and the service's
    // code root in its OS temp dir (/tmp, as it is given no TMPDIR): paths for the prober to try.
    const runDir = runDirs(host.servicePid).find((dir) => statSync(dir).uid === holderUid);
    expect(runDir, "the holder's directory, seen from the host").toBeDefined();
    const codeRoot = readdirSync("/tmp")
      .filter((e) => e.startsWith("wf-code-"))
      .map((e) => join("/tmp", e))
      .find((root) => readdirSync(root).some((e) => e.startsWith("runner-")));
    expect(codeRoot, "the service's code root on the host").toBeDefined();

    const proberExecution = await client.start(stranger, proberWorkflow, {
      target: { pid: holderPid, runDir, codeRoot },
    });
    const [proberPid] = await waitFor(() => sleepers(proberMarker).length === 1 && sleepers(proberMarker), {
      timeoutMs: 20_000,
      what: "the prober's sleep",
    });
    const proberUid = hostUid(proberPid!);
    expect(holderUid).not.toBe(proberUid);
    for (const uid of [holderUid, proberUid]) expect(uid).toBeGreaterThanOrEqual(firstSandboxUid);
    for (const pid of [holderPid!, proberPid!]) process.kill(pid, "SIGKILL");

    const holder = await client.result(owner, holderExecution);
    const prober = await client.result(stranger, proberExecution);
    expect(reportOf(holder, "hold")).toMatchObject({ held: token.length });
    const seen = reportOf(prober, "probe");
    expectNothingLeaked(prober);
    expect(JSON.stringify(prober)).not.toContain(token);
    expect(seen.uid).toBeGreaterThanOrEqual(1000);
    expectOwnPids(seen.pids as number[]);
    expect(seen.pids).not.toContain(holderPid);
    expect(seen).toMatchObject({
      environ_scan: [],
      "run dir": false,
      "code root": false,
      runs: false,
      tmp: [],
      "proc of holder": false,
      "environ of holder": "ENOENT",
      "kill holder": "ESRCH",
      "ptrace traceme": "EPERM",
      "ptrace holder": "EPERM",
    });
    const visible = Object.keys(seen["ptrace visible"] as object);
    expect(visible.length).toBeGreaterThan(0);
    expect(seen["ptrace visible"]).toEqual(Object.fromEntries(visible.map((pid) => [pid, "EPERM"])));
  });

  it("the terminal `npm start` runs in: a step can neither open it, write on it nor push input into it", async () => {
    const marker = `wf-escape-terminal-${id}`;
    const result = await runSteps("terminal", [
      code("bash", "bash", bash.terminal(marker)),
      code("python", "python", python.terminal(marker)),
    ]);
    const tty = probesOf(result, "bash");
    // All of it at once: when one part fails, the rest tells how far a step got.
    expect({
      bash: tty,
      python: reportOf(result, "python"),
      // What the operator's terminal showed: the service's logs, never a step's words or input.
      terminalShowsTheSteps: service.output().includes(marker),
    }).toEqual({
      bash: {
        open_tty: {
          rc: 1,
          out: expect.stringMatching(
            /\/dev\/tty: (No such device or address|No such file or directory|Read-only file system)$/,
          ),
        },
        write_tty: {
          rc: 1,
          out: expect.stringMatching(
            /\/dev\/tty: (No such device or address|No such file or directory|Read-only file system)$/,
          ),
        },
      },
      python: { open: expect.stringMatching(/^(ENXIO|ENOENT)$/) },
      terminalShowsTheSteps: false,
    });
  });

  it("a stdio MCP server: runs where code steps do, and reaches none of it either", async () => {
    const model = `escape-mcp-${id}`;
    const secretFiles = [
      `${host.dataDir}/keys.json`,
      `${host.dataDir}/nats-credentials.json`,
      canaryPath,
      `${host.repo}/package.json`,
      "/etc/shadow",
    ];
    const writes = [
      join("/tmp", `${writeName}-mcp`),
      join(host.repo, `${writeName}-mcp`),
      join(host.dataDir, `${writeName}-mcp`),
    ];
    llm.script(
      model,
      {
        toolCalls: [
          {
            name: "probe__probe",
            arguments: {
              files: secretFiles,
              pids: [host.servicePid, host.natsPid, ...host.runnerPids],
              ports: [host.natsPort, host.edgePort],
              sockets: ["/run/mysqld/mysqld.sock", "/var/run/postgresql/.s.PGSQL.5432"],
              writes,
              // 127.0.0.1 itself is the server's own loopback (NO_PROXY): the same address, mapped.
              edge: `http://[::ffff:127.0.0.1]:${host.edgePort}/`,
            },
          },
        ],
      },
      { text: "probed" },
    );
    const workflow = await client.importWorkflow(owner, {
      name: `escape mcp ${id}`,
      agents: [
        {
          name: "prober",
          model,
          mcp: [{ name: "probe", command: [process.execPath, "--import", TSX_LOADER, MCP_PROBE_SERVER] }],
        },
      ],
      steps: [{ name: "probe", type: "agent", agent: "prober", prompt: "probe" }],
    });
    const result = await client.run(owner, workflow);
    expect(result.status, JSON.stringify(result)).toBe("COMPLETED");
    const [, second] = llm.requests(model);
    const toolMessage = (second!.body.messages as { role: string; content: string }[]).find((m) => m.role === "tool");
    const seen = JSON.parse(toolMessage!.content) as Record<string, unknown>;
    expectNothingLeaked(seen);
    expect(seen).toMatchObject({
      pid: 1,
      files: Object.fromEntries(secretFiles.map((f) => [f, "ENOENT"])),
      environs: Object.fromEntries([host.servicePid, host.natsPid, ...host.runnerPids].map((p) => [p, "ENOENT"])),
      signals: Object.fromEntries([host.servicePid, host.natsPid, ...host.runnerPids].map((p) => [p, "ESRCH"])),
      tcp: { [host.natsPort]: "ECONNREFUSED", [host.edgePort]: "ECONNREFUSED" },
      unix: { "/run/mysqld/mysqld.sock": "ENOENT", "/var/run/postgresql/.s.PGSQL.5432": "ENOENT" },
      // Its own /tmp takes the write; of the repository, only the node_modules made readable to
      // it is there (read-only), and the data directory is not.
      writes: { [writes[0]!]: "ok", [writes[1]!]: "EROFS", [writes[2]!]: "ENOENT" },
      tty: "ENOENT",
      sys: false,
      edgeThroughProxy: "HTTP 403",
    });
    expect(seen.uid).toBeGreaterThanOrEqual(1000);
    expectOwnPids(seen.procPids as number[]);
    await expectHostUntouched();
  });

  it("a runaway expression fails its step at the deadline, naming it, while the API answers as usual", async () => {
    // The probe's regex, and an expression that does stay in one built-in call for long.
    const workflow = await client.importWorkflow(owner, {
      name: `escape expressions ${id}`,
      steps: [
        { name: "redos", type: "transform", output: "{{ $match($pad('', 28, 'a') & '!', /(a+)+$/) }}" },
        { name: "runaway", type: "transform", output: "{{ $replace($pad('', 5000000, 'a'), /a/, 'b') }}" },
      ],
    });
    const started = performance.now();
    const execution = await client.start(owner, workflow);
    const latencies: number[] = [];
    let view: { status: string } = { status: "PENDING" };
    while (!["COMPLETED", "FAILED"].includes(view.status) && performance.now() - started < 30_000) {
      const t = performance.now();
      view = await client.status(owner, execution);
      latencies.push(performance.now() - t);
    }
    const result = await client.result(owner, execution);
    expect(result.status).toBe("FAILED");
    expect(result.stepResults.redos).toMatchObject({ status: "COMPLETED" });
    expect(String(result.stepResults.runaway?.error)).toMatch(
      /expression `\$replace\(\$pad\('', 5000000, 'a'\), \/a\/, 'b'\)` failed: took longer than 1000 ms/,
    );
    // Polled all along: a generous bound (the precise figures are the bench's).
    expect(latencies.length).toBeGreaterThan(3);
    expect(Math.max(...latencies)).toBeLessThan(500);
  });
});
