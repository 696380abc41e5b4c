import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runnerBundles, sleepers, sleepMarker, waitFor } from "@wf/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CodeRequest, CodeRunner } from "./index";
import { createCodeRunner } from "./index";
import { step, writtenRunDirs } from "./testing/processes";

function sh(code: string, extra: Partial<CodeRequest> = {}): CodeRequest {
  return step("bash", code, extra);
}

describe("Bash code steps", () => {
  let runner: CodeRunner;
  let scratch: string;
  beforeAll(async () => {
    process.env.WF_TEST_SECRET = "do-not-leak";
    scratch = await mkdtemp(join(tmpdir(), "wf-bash-test-"));
    runner = await createCodeRunner({ pool: 1, tmpRoot: scratch, ...runnerBundles() });
  });
  afterAll(async () => {
    await runner.close();
    await rm(scratch, { recursive: true, force: true });
    delete process.env.WF_TEST_SECRET;
  });

  it("sees vars, input and item as WF_ variables", async () => {
    const code =
      'printf \'%s|%s|%s|%s|%s|%s\\n\' "$WF_VAR_s" "$WF_VAR_n" "$WF_VAR_list" "$WF_INPUT" "$WF_ITEM" "$WF_ITEM_name"';
    const req = sh(code, {
      vars: { s: "two words", n: 1.5, list: ["a", 2] },
      input: { q: 1 },
      item: { name: "it", n: 2 },
    });
    expect(await runner.run(req)).toMatchObject({
      ok: true,
      output: 'two words|1.5|["a",2]|{"q":1}|{"name":"it","n":2}|it',
    });
  });

  it("gets a value too long for the environment in a file that <NAME>_FILE names, and the rest as they are", async () => {
    const long = "v".repeat(200 * 1024);
    const code =
      'printf \'%s|%s|%s|%s|%s\\n\' "${WF_VAR_long-unset}" "$(wc -c < "$WF_VAR_long_FILE")" ' +
      '"$(head -c 3 "$WF_VAR_long_FILE")" "$(wc -c < "$WF_INPUT_FILE")" "$WF_VAR_short"';
    const req = sh(code, { vars: { long, short: "s" }, input: { text: long } });
    expect(await runner.run(req)).toMatchObject({
      ok: true,
      output: `unset|${long.length}|vvv|${JSON.stringify({ text: long }).length}|s`,
    });
    // Together past what exec takes (about 2 MiB), though each would fit alone: the largest go to files.
    const many = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`v${i}`, "a".repeat(100 * 1024)]));
    const sum =
      'files=0; total=0; for i in $(seq 0 19); do f="WF_VAR_v${i}_FILE"; v="WF_VAR_v${i}"; ' +
      'if [ -n "${!f-}" ]; then files=$((files+1)); total=$((total+$(wc -c < "${!f}"))); ' +
      'else val="${!v}"; total=$((total+${#val})); fi; done; echo "[$files, $total]"';
    const summed = await runner.run(sh(sum, { vars: many }));
    expect(summed).toMatchObject({ ok: true, output: [expect.any(Number), 20 * 100 * 1024] });
    const [files] = (summed as { output: number[] }).output;
    expect(files).toBeGreaterThan(0);
    expect(files).toBeLessThan(20);
  });

  it("takes the last stdout line as JSON output, the rest as logs", async () => {
    const code = "echo working; echo warn >&2; echo '{\"n\": 1}'";
    expect(await runner.run(sh(code))).toMatchObject({ ok: true, output: { n: 1 }, logs: ["warn", "working"] });
    expect(await runner.run(sh("echo '  plain text  '"))).toMatchObject({ ok: true, output: "plain text" });
  });

  it("fails on a non-zero exit with the tail of stderr", async () => {
    const result = await runner.run(sh("echo out; echo 'it broke' >&2; exit 4"));
    expect(result).toMatchObject({
      ok: false,
      timedOut: false,
      error: "exited with code 4: it broke",
      logs: ["it broke", "out"],
    });
  });

  it("runs in a clean environment, in a private directory removed afterwards", async () => {
    const code =
      'touch file; echo "$WF_TEST_SECRET|$HOME|$WF_ARTIFACTS_DIR|$(pwd)"; ls "$WF_ARTIFACTS_DIR/.." | tr "\\n" " "';
    expect(await runner.run(sh(code))).toMatchObject({
      ok: true,
      output: "|/step|/step/artifacts|/step\nartifacts file",
    });
    await waitFor(() => writtenRunDirs().length === 0, { what: "the run directory to be removed" });
  });

  it("kills background children at the timeout", async () => {
    const [a, b] = [sleepMarker(), sleepMarker()];
    const lines: string[] = [];
    const running = runner.run(
      sh(`sleep ${a} & sleep ${b} & echo started; wait`, { timeoutMs: 2000 }),
      undefined,
      (line) => lines.push(line),
    );
    await waitFor(() => lines.includes("started") && sleepers(a).length + sleepers(b).length === 2, {
      what: "both children to run",
    });
    expect(await running).toMatchObject({ ok: false, timedOut: true, error: "timed out after 2 s" });
    await waitFor(() => sleepers(a).length + sleepers(b).length === 0, { what: "both children to be gone" });
  });

  it("kills what a step left running when it exits", async () => {
    const marker = sleepMarker();
    const result = await runner.run(sh(`setsid sleep ${marker} >/dev/null 2>&1 & echo done`));
    expect(result).toMatchObject({ ok: true, output: "done" });
    await waitFor(() => sleepers(marker).length === 0, { what: "the leftover to be gone" });
  });

  it("kills everything on abort", async () => {
    const marker = sleepMarker();
    const controller = new AbortController();
    const lines: string[] = [];
    const running = runner.run(
      sh(`sleep ${marker} & echo started; wait`, { timeoutMs: 60_000 }),
      controller.signal,
      (line) => lines.push(line),
    );
    await waitFor(() => lines.includes("started") && sleepers(marker).length === 1, { what: "the step to run" });
    controller.abort();
    expect(await running).toMatchObject({ ok: false, timedOut: false, error: "aborted" });
    await waitFor(() => sleepers(marker).length === 0, { what: "its processes to be gone" });
  });
});
