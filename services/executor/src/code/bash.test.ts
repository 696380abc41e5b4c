import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { waitFor } from "@wf/shared/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CodeRequest, CodeRunner } from "./index";
import { createCodeRunner } from "./index";
import { isAlive, pidsIn, step } from "./test-support";

function sh(code: string, extra: Partial<CodeRequest> = {}): CodeRequest {
  return step("bash", code, extra);
}

describe("Bash code steps", () => {
  let runner: CodeRunner;
  let scratch: string;
  beforeAll(async () => {
    process.env.WF_TEST_SECRET = "do-not-leak";
    runner = await createCodeRunner({ pool: 1 });
    scratch = await mkdtemp(join(tmpdir(), "wf-bash-test-"));
  });
  afterAll(async () => {
    await runner.close();
    await rm(scratch, { recursive: true, force: true });
    delete process.env.WF_TEST_SECRET;
  });

  it("sees vars, input and item as WF_ variables", async () => {
    const code = 'printf \'%s|%s|%s|%s|%s|%s\\n\' "$WF_VAR_s" "$WF_VAR_n" "$WF_VAR_list" "$WF_INPUT" "$WF_ITEM" "$WF_ITEM_name"';
    const req = sh(code, { vars: { s: "two words", n: 1.5, list: ["a", 2] }, input: { q: 1 }, item: { name: "it", n: 2 } });
    expect(await runner.run(req)).toMatchObject({
      ok: true,
      output: 'two words|1.5|["a",2]|{"q":1}|{"name":"it","n":2}|it',
    });
  });

  it("takes the last stdout line as JSON output, the rest as logs", async () => {
    const code = 'echo working; echo warn >&2; echo \'{"n": 1}\'';
    expect(await runner.run(sh(code))).toMatchObject({ ok: true, output: { n: 1 }, logs: ["warn", "working"] });
    expect(await runner.run(sh("echo '  plain text  '"))).toMatchObject({ ok: true, output: "plain text" });
  });

  it("fails on a non-zero exit with the tail of stderr", async () => {
    const result = await runner.run(sh("echo out; echo 'it broke' >&2; exit 4"));
    expect(result).toMatchObject({ ok: false, timedOut: false, error: "exited with code 4: it broke", logs: ["it broke", "out"] });
  });

  it("runs in a clean environment, in a private directory removed afterwards", async () => {
    const code = 'touch file; echo "$WF_TEST_SECRET|$HOME|$WF_ARTIFACTS_DIR"; test -d "$WF_ARTIFACTS_DIR" && pwd';
    const result = await runner.run(sh(code));
    if (!result.ok) throw new Error(result.error);
    const [secretLine, cwd] = String(result.output).split("\n");
    expect(secretLine).toBe(`|${cwd}|${cwd}/artifacts`);
    await waitFor(() => !existsSync(cwd ?? ""), { what: "the run directory to be removed" });
  });

  it("kills background children with the group at the timeout", async () => {
    const pidFile = join(scratch, "timeout.pids");
    const code = 'sleep 100 & echo $! >> "$WF_VAR_pids"; sleep 100 & echo $! >> "$WF_VAR_pids"; wait';
    const result = await runner.run(sh(code, { vars: { pids: pidFile }, timeoutMs: 500 }));
    expect(result).toMatchObject({ ok: false, timedOut: true, error: "timed out after 0.5 s" });
    for (const pid of await pidsIn(pidFile, 2)) {
      await waitFor(() => !isAlive(pid), { what: `process ${pid} to be gone` });
    }
  });

  it("kills what a step left running when it exits", async () => {
    const pidFile = join(scratch, "leftover.pids");
    const result = await runner.run(sh('sleep 100 >/dev/null 2>&1 & echo $! >> "$WF_VAR_pids"; echo done', { vars: { pids: pidFile } }));
    expect(result).toMatchObject({ ok: true, output: "done" });
    for (const pid of await pidsIn(pidFile, 1)) {
      await waitFor(() => !isAlive(pid), { what: `process ${pid} to be gone` });
    }
  });

  it("kills the process group on abort", async () => {
    const pidFile = join(scratch, "abort.pids");
    const controller = new AbortController();
    const running = runner.run(
      sh('echo $$ >> "$WF_VAR_pids"; sleep 100 & echo $! >> "$WF_VAR_pids"; wait', { vars: { pids: pidFile }, timeoutMs: 60_000 }),
      controller.signal,
    );
    const pids = await pidsIn(pidFile, 2);
    controller.abort();
    expect(await running).toMatchObject({ ok: false, timedOut: false, error: "aborted" });
    for (const pid of pids) await waitFor(() => !isAlive(pid), { what: `process ${pid} to be gone` });
  });
});
