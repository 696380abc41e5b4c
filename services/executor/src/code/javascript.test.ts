import { runInNewContext } from "node:vm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CodeLanguage, CodeRequest, CodeRunner } from "./index";
import { createCodeRunner, UnsupportedLanguageError } from "./index";
import { step } from "./test-support";

function js(code: string, extra: Partial<CodeRequest> = {}): CodeRequest {
  return step("javascript", code, extra);
}

describe("JavaScript code steps", () => {
  let runner: CodeRunner;
  beforeAll(async () => {
    process.env.WF_TEST_SECRET = "do-not-leak";
    runner = await createCodeRunner({ jsMemoryLimitMb: 32, pool: 1 });
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

  it("lets the steps of one workflow share a context, never with another workflow's or another owner's", async () => {
    const ours = { owner: `owner-${Math.random()}`, workflow: "w1", execution: "e1" };
    const otherWorkflow = { ...ours, workflow: "w2" };
    const otherOwner = { ...ours, owner: `owner-${Math.random()}` };
    const code = "const seen = globalThis.mark ?? null; globalThis.mark = input; Object.prototype.tag = input; return [seen, ({}).tag];";
    expect(await runner.run(js(code, { input: "one", ...ours }))).toMatchObject({ ok: true, output: [null, "one"] });
    // Others run between: another workflow of the owner, the same workflow id of another owner, and steps of none.
    expect(await runner.run(js(code, { input: "x", ...otherWorkflow }))).toMatchObject({ ok: true, output: [null, "x"] });
    expect(await runner.run(js(code, { input: "z", ...otherOwner }))).toMatchObject({ ok: true, output: [null, "z"] });
    expect(await runner.run(js("return [globalThis.mark ?? null, ({}).tag ?? null]"))).toMatchObject({ ok: true, output: [null, null] });
    // A later execution of the same workflow is a later step of it too.
    expect(await runner.run(js(code, { input: "two", ...ours, execution: "e2" }))).toMatchObject({ ok: true, output: ["one", "two"] });
    expect(await runner.run(js(code, { input: "y", ...otherWorkflow }))).toMatchObject({ ok: true, output: ["x", "y"] });
  });

  it("gives each step of a shared context its own log allowance, and a fresh context after a step that timed out", async () => {
    const shared = { owner: `owner-${Math.random()}`, workflow: "w" };
    const noisy = "for (let i = 0; i < 1500; i++) console.log(i); globalThis.kept = true; return 0";
    for (let i = 0; i < 2; i++) {
      const result = await runner.run(js(noisy, shared));
      expect([result.logs.length, result.logs[0]]).toEqual([1000, "0"]);
    }
    expect(await runner.run(js("return globalThis.kept ?? false", shared))).toMatchObject({ ok: true, output: true });
    expect(await runner.run(js("globalThis.kept = 'late'; while (true) {}", { ...shared, timeoutMs: 300 }))).toMatchObject({ ok: false, timedOut: true });
    expect(await runner.run(js("return globalThis.kept ?? false", shared))).toMatchObject({ ok: true, output: false });
  });

  it("does not keep a context whose isolate's heap a step left large: the next step of its workflow starts afresh", async () => {
    const shared = { owner: `owner-${Math.random()}`, workflow: "w" };
    expect(await runner.run(js("globalThis.small = 1; return 0", shared))).toMatchObject({ ok: true });
    expect(await runner.run(js("return globalThis.small ?? null", shared))).toMatchObject({ ok: true, output: 1 });
    // 3 million doubles in a packed array: 24 MB of the isolate's heap, past the 16 MB a kept context may leave.
    expect(await runner.run(js("globalThis.big = new Array(3_000_000).fill(0.5); return 0", shared))).toMatchObject({ ok: true });
    expect(await runner.run(js("return [globalThis.small ?? null, globalThis.big?.length ?? null]", shared))).toMatchObject({ ok: true, output: [null, null] });
  });

  it("does not hold a step back behind steps stuck in endless loops", async () => {
    // More than the runs a runner takes at once (8) and than its isolates (2 to 8).
    const order: string[] = [];
    const stuck = Array.from({ length: 12 }, () => runner.run(js("while (true) {}", { timeoutMs: 3_000 })).then(() => order.push("stuck")));
    const quick = runner.run(js("return 'quick'")).then((r) => order.push(r.ok ? String(r.output) : r.error));
    await Promise.all([...stuck, quick]);
    expect(order[0]).toBe("quick");
  });

  it("gives user code nothing of the host: no Node APIs, no isolated-vm objects, no host globals", async () => {
    const code = `
      const globals = Object.getOwnPropertyNames(globalThis);
      const reachable = {};
      for (const name of ["process", "require", "module", "global", "Buffer", "ivm", "isolatedVm", "$0", "$1", "$2", "$3", "$settle", "send", "writeArtifact", "setTimeout", "fetch", "WebAssembly"]) {
        try { reachable[name] = typeof eval(name); } catch { reachable[name] = "unreachable"; }
      }
      const viaConstructor = console.log.constructor("return typeof process + typeof require")();
      const hostGlobal = Function("return this")() === globalThis;
      return { reachable, viaConstructor, hostGlobal, globals };`;
    const result = await runner.run(js(code));
    if (!result.ok) throw new Error(result.error);
    const output = result.output as { reachable: Record<string, string>; viaConstructor: string; hostGlobal: boolean; globals: string[] };
    for (const [name, type] of Object.entries(output.reachable)) {
      // $0…$3 are the step function's own (undefined) parameters, shadowing the host's.
      expect([name, type]).toEqual([name, name === "WebAssembly" ? "object" : /^\$\d$/.test(name) ? "undefined" : "unreachable"]);
    }
    expect(output.viaConstructor).toBe("undefinedundefined");
    expect(output.hostGlobal).toBe(true);
    // V8's own builtins, as a bare Node vm context has them, and `artifacts`.
    const builtins = new Set(runInNewContext("Object.getOwnPropertyNames(globalThis)") as string[]);
    expect(output.globals.filter((name) => !builtins.has(name))).toEqual(["artifacts"]);
  });

  it("runs TypeScript with its types stripped, keeping line numbers", async () => {
    const ok = await runner.run({ ...js("const n: number = input.n;\nreturn (n * 2) as number;"), language: "typescript", input: { n: 4 } });
    expect(ok).toMatchObject({ ok: true, output: 8 });
    const thrown = await runner.run({ ...js("interface A { a: string }\nthrow new Error('typed');"), language: "typescript" });
    expect(!thrown.ok && thrown.error).toBe("Error: typed (line 2)");
  });

  it("rejects a language it does not know", async () => {
    await expect(runner.run({ ...js("puts 1"), language: "cobol" as CodeLanguage })).rejects.toBeInstanceOf(UnsupportedLanguageError);
  });
});
