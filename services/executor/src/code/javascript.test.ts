import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CodeRequest, CodeRunner } from "./index";
import { createCodeRunner, UnsupportedLanguageError } from "./index";
import { childProcesses, isAlive } from "./test-support";

const RUNNER = "js-runner-process.mjs";

function js(code: string, extra: Partial<CodeRequest> = {}): CodeRequest {
  return { language: "javascript", code, vars: {}, input: null, timeoutMs: 10_000, ...extra };
}

describe("JavaScript code steps", () => {
  let runner: CodeRunner;
  beforeAll(async () => {
    process.env.WF_TEST_SECRET = "do-not-leak";
    runner = await createCodeRunner({ jsMemoryLimitMb: 32 });
  });
  afterAll(async () => {
    await runner.close();
    delete process.env.WF_TEST_SECRET;
  });

  it("returns the function's value as output, undefined as null", async () => {
    const result = await runner.run(js("return { a: 1, list: [1, 'two'] }"));
    expect(result).toMatchObject({ ok: true, output: { a: 1, list: [1, "two"] }, logs: [] });
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
    expect(await runner.run(js("const x = 1;"))).toMatchObject({ ok: true, output: null });
  });

  it("runs async code", async () => {
    const code = "const a = await Promise.resolve(20); const b = await new Promise((r) => r(22)); return a + b;";
    expect(await runner.run(js(code))).toMatchObject({ ok: true, output: 42 });
  });

  it("has vars, input and item in scope", async () => {
    const req = js("return { v: vars.name, n: input.n, item }", {
      vars: { name: "wf" },
      input: { n: 3 },
      item: { id: 7 },
    });
    expect(await runner.run(req)).toMatchObject({ ok: true, output: { v: "wf", n: 3, item: { id: 7 } } });
    expect(await runner.run(js("return item"))).toMatchObject({ ok: true, output: null });
  });

  it("sends console output to the logs", async () => {
    const code = "console.log('a', 1, { b: 2 }); console.info('i'); console.warn('w'); console.error('e'); return 0";
    expect(await runner.run(js(code))).toMatchObject({ ok: true, logs: ['a 1 {"b":2}', "i", "w", "e"] });
  });

  it("fails with the message and line of a thrown error, keeping the logs", async () => {
    const result = await runner.run(js("console.log('before');\nconst x = 1;\nthrow new Error('boom');"));
    expect(result).toMatchObject({ ok: false, timedOut: false, logs: ["before"] });
    expect(!result.ok && result.error).toBe("Error: boom (line 3)");
  });

  it("fails with the line of a syntax error", async () => {
    const result = await runner.run(js("const a = 1;\nlet x = ;"));
    expect(!result.ok && result.error).toMatch(/^SyntaxError: .* \(line 2\)$/);
  });

  it("fails when the output is not JSON", async () => {
    const result = await runner.run(js("return 1n"));
    expect(!result.ok && result.error).toMatch(/not JSON-serialisable/);
  });

  it("times out an endless loop, and the next run works", async () => {
    const result = await runner.run(js("while (true) {}", { timeoutMs: 200 }));
    expect(result).toMatchObject({ ok: false, timedOut: true, error: "timed out after 0.2 s" });
    const afterAwait = await runner.run(js("await null; for (;;) {}", { timeoutMs: 200 }));
    expect(afterAwait).toMatchObject({ ok: false, timedOut: true });
    const pending = await runner.run(js("await new Promise(() => {})", { timeoutMs: 200 }));
    expect(pending).toMatchObject({ ok: false, timedOut: true });
    expect(await runner.run(js("return 'still here'"))).toMatchObject({ ok: true, output: "still here" });
  });

  it("fails cleanly past the memory limit, and the next run works", async () => {
    const result = await runner.run(js("const a = []; for (;;) a.push({ n: a.length, s: 'x' + a.length });"));
    expect(result).toMatchObject({ ok: false, timedOut: false, error: "memory limit of 32 MB exceeded" });
    expect(await runner.run(js("return 1"))).toMatchObject({ ok: true, output: 1 });
  });

  it("stops an aborted run, and the next run works", async () => {
    const controller = new AbortController();
    const running = runner.run(js("for (;;) {}", { timeoutMs: 60_000 }), controller.signal);
    controller.abort();
    expect(await running).toMatchObject({ ok: false, timedOut: false, error: "aborted" });
    const already = await runner.run(js("return 1"), AbortSignal.abort());
    expect(already).toMatchObject({ ok: false, error: "aborted" });
    expect(await runner.run(js("return 2"))).toMatchObject({ ok: true, output: 2 });
  });

  it("keeps concurrent and consecutive runs apart", async () => {
    const code = `
      const seen = typeof globalThis.mine;
      globalThis.mine = input;
      Object.prototype.polluted = input;
      for (let i = 0; i < 5; i++) await null;
      return { seen, mine: globalThis.mine, polluted: ({}).polluted };`;
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => runner.run(js(code, { input: i }))));
    results.forEach((result, i) => {
      expect(result).toMatchObject({ ok: true, output: { seen: "undefined", mine: i, polluted: i } });
    });
    expect(await runner.run(js("return [typeof mine, ({}).polluted ?? null]"))).toMatchObject({
      ok: true,
      output: ["undefined", null],
    });
  });

  it("gives user code no Node APIs and no service environment", async () => {
    const code = "return [typeof process, typeof require, typeof fetch, typeof setTimeout]";
    expect(await runner.run(js(code))).toMatchObject({ ok: true, output: ["undefined", "undefined", "undefined", "undefined"] });
    const [pid] = childProcesses(process.pid, RUNNER);
    expect(pid).toBeDefined();
    expect(readFileSync(`/proc/${pid}/environ`, "utf8")).not.toContain("WF_TEST_SECRET");
  });

  it("runs TypeScript with its types stripped, keeping line numbers", async () => {
    const ok = await runner.run({ ...js("const n: number = input.n;\nreturn (n * 2) as number;"), language: "typescript", input: { n: 4 } });
    expect(ok).toMatchObject({ ok: true, output: 8 });
    const thrown = await runner.run({ ...js("interface A { a: string }\nthrow new Error('typed');"), language: "typescript" });
    expect(!thrown.ok && thrown.error).toBe("Error: typed (line 2)");
  });

  it("fails the runs in flight when the runner process dies, and starts a new one", async () => {
    const [pid] = childProcesses(process.pid, RUNNER);
    if (pid === undefined) throw new Error("no runner process");
    const running = runner.run(js("for (;;) {}", { timeoutMs: 60_000 }));
    process.kill(pid, "SIGKILL");
    const result = await running;
    expect(!result.ok && result.error).toMatch(/JavaScript runner process exited unexpectedly \(SIGKILL\)/);
    expect(await runner.run(js("return 'again'"))).toMatchObject({ ok: true, output: "again" });
    expect(isAlive(pid)).toBe(false);
    expect(childProcesses(process.pid, RUNNER)).toHaveLength(1);
  });

  it("rejects languages not built yet", async () => {
    await expect(runner.run({ ...js("puts 1"), language: "ruby" })).rejects.toBeInstanceOf(UnsupportedLanguageError);
  });
});
