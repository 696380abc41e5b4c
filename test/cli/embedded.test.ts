import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect } from "@nats-io/transport-node";
import { describe, expect, it, onTestFinished } from "vitest";
import { natsServerBin } from "@wf/testing";
import { ENTRIES, startServiceProcess } from "../support/processes";
import { uniqueNamespace } from "../support/runtime";
import { runCli, workflowFiles } from "./cli-process";

const files = await workflowFiles({
  hello: `
name: hello
steps:
  - { name: greet, type: transform, output: { text: "hello" } }
`,
  secret: `
name: reads a secret
steps:
  - name: read
    type: transform
    output: { length: "{{ $length(secrets.api_token) }}" }
`,
});

const mode = async (path: string): Promise<number> => (await stat(path)).mode & 0o777;

describe("wf against the service `npm start` runs, with nothing set up", () => {
  it("finds the nats-server the service started for its data directory, which refuses clients without credentials", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "wf-data-"));
    onTestFinished(() => rm(dataDir, { recursive: true, force: true, maxRetries: 2 }));
    const ns = uniqueNamespace();
    // No NATS_URL, no key: the embedded default, from the bundle as `npm start` runs it.
    const service = await startServiceProcess(
      ENTRIES.allInOne,
      { WF_DATA_DIR: dataDir, WF_NAMESPACE: ns, PORT: "0", NATS_SERVER_BIN: natsServerBin() },
      ["[wf] ready"],
    );
    onTestFinished(async () => void (await service.stop()));
    const url = (await readFile(join(dataDir, "nats-url"), "utf8")).trim();
    await expect(connect({ servers: url, reconnect: false })).rejects.toMatchObject({ name: "AuthorizationError" });

    // The CLI is told the data directory only (the default, .data, when run where npm start runs).
    const cli = { WF_DATA_DIR: dataDir, WF_NAMESPACE: ns };
    const hello = await runCli(["run", files.hello], cli);
    expect(hello.code, hello.stderr).toBe(0);
    expect(hello.stdout).toMatch(/■ execution COMPLETED/);

    const created = await runCli(
      [
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
      ],
      cli,
    );
    expect(created.code, created.stderr).toBe(0);
    const userId = (JSON.parse(created.stdout) as { id: string }).id;
    const token = `token-${ns}-0123456789`;
    const set = await runCli(
      ["admin", "secret", "set", "--user", userId, "--name", "api_token", "--value", token],
      cli,
    );
    expect(set.code, set.stderr).toBe(0);
    // The executor opens what the CLI sealed: the same key, found the same way.
    const read = await runCli(["run", files.secret, "--owner", userId, "--json"], cli);
    expect(read.code, read.stderr).toBe(0);
    const result = JSON.parse(read.stdout.trim().split("\n").at(-1)!) as { status: string; output: unknown };
    expect(result).toMatchObject({ status: "COMPLETED", output: { length: token.length } });

    for (const file of ["keys.json", "nats-credentials.json", "nats-server.conf"])
      expect(await mode(join(dataDir, file)), file).toBe(0o600);

    // SIGTERM stops it, the executor's thread included, rather than the SIGKILL that follows 10 s later.
    expect(await service.stop()).toEqual({ code: 0, signal: null });
    expect(service.output()).toContain("SIGTERM: stopping");
  }, 60_000);

  it("without NATS_URL and without a server started for the data directory, says what to do", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "wf-data-"));
    onTestFinished(() => rm(dataDir, { recursive: true, force: true, maxRetries: 2 }));
    const r = await runCli(["run", files.hello], { WF_DATA_DIR: dataDir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`no nats-server was started for ${dataDir}`);
    expect(r.stderr).toContain("npm start");
    expect(r.stderr).toContain("NATS_URL");
  });
});
