import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CodeLanguage, CodeRequest, CodeRunner } from "./index";
import { createCodeRunner } from "./index";
import { commandFor } from "./languages";
import { step } from "./testing/processes";
import { runnerBundles } from "@wf/testing";

/** Per language: a step printing what it was given, one failing, one never ending, one writing an artifact. */
const PROGRAMS: Record<CodeLanguage, { vars: string; fails: string; loops: string; artifact: string }> = {
  python: {
    vars: `import json, os
e = os.environ
print(json.dumps({"s": e["WF_VAR_s"], "list": json.loads(e["WF_VAR_list"]), "input": json.loads(e["WF_INPUT"]), "item": e["WF_ITEM_name"]}))`,
    fails: `import sys\nprint("it broke", file=sys.stderr)\nsys.exit(3)`,
    loops: "while True: pass",
    artifact: `import os
d = os.path.join(os.environ["WF_ARTIFACTS_DIR"], "report")
os.makedirs(d)
open(os.path.join(d, "out.txt"), "w").write("hello")`,
  },
  bash: {
    vars: `printf '{"s":"%s","list":%s,"input":%s,"item":"%s"}\\n' "$WF_VAR_s" "$WF_VAR_list" "$WF_INPUT" "$WF_ITEM_name"`,
    fails: "echo 'it broke' >&2; exit 3",
    loops: "while :; do :; done",
    artifact: 'mkdir -p "$WF_ARTIFACTS_DIR/report" && printf hello > "$WF_ARTIFACTS_DIR/report/out.txt"',
  },
  ruby: {
    vars: `require "json"
puts JSON.generate({s: ENV["WF_VAR_s"], list: JSON.parse(ENV["WF_VAR_list"]), input: JSON.parse(ENV["WF_INPUT"]), item: ENV["WF_ITEM_name"]})`,
    fails: `$stderr.puts "it broke"\nexit 3`,
    loops: "loop {}",
    artifact: `require "fileutils"
FileUtils.mkdir_p(File.join(ENV["WF_ARTIFACTS_DIR"], "report"))
File.write(File.join(ENV["WF_ARTIFACTS_DIR"], "report", "out.txt"), "hello")`,
  },
  lua: {
    vars: `print(string.format('{"s":"%s","list":%s,"input":%s,"item":"%s"}',
  os.getenv("WF_VAR_s"), os.getenv("WF_VAR_list"), os.getenv("WF_INPUT"), os.getenv("WF_ITEM_name")))`,
    fails: `io.stderr:write("it broke\\n")\nos.exit(3)`,
    loops: "while true do end",
    artifact: `local dir = os.getenv("WF_ARTIFACTS_DIR") .. "/report"
os.execute("mkdir -p '" .. dir .. "'")
local f = assert(io.open(dir .. "/out.txt", "w"))
f:write("hello")
f:close()`,
  },
  javascript: {
    vars: "return { s: vars.s, list: vars.list, input, item: item.name }",
    fails: "throw new Error('it broke')",
    loops: "for (;;) {}",
    artifact: "artifacts.write('report/out.txt', 'hello')",
  },
  typescript: {
    vars: "const it: { name: string } = item;\nreturn { s: vars.s as string, list: vars.list, input, item: it.name }",
    fails: "const message: string = 'it broke';\nthrow new Error(message)",
    loops: "let n: number = 0;\nfor (;;) { n++ }",
    artifact:
      "const bytes: Uint8Array = new Uint8Array([104, 101, 108, 108, 111]);\nartifacts.write('report/out.txt', bytes)",
  },
  // argv, no shell: see the cli tests below.
  cli: { vars: "", fails: "", loops: "", artifact: "" },
};

const GIVEN = { vars: { s: "two words", list: [1, "a"] }, input: { q: 1 }, item: { name: "it", n: 2 } };
const FAILURE: Record<CodeLanguage, RegExp> = {
  python: /^exited with code 3: it broke$/,
  bash: /^exited with code 3: it broke$/,
  ruby: /^exited with code 3: it broke$/,
  lua: /^exited with code 3: it broke$/,
  javascript: /^Error: it broke \(line 1\)$/,
  typescript: /^Error: it broke \(line 2\)$/,
  cli: /./,
};

describe("code steps in every language", () => {
  let runner: CodeRunner;
  beforeAll(async () => {
    runner = await createCodeRunner(runnerBundles());
  });
  afterAll(async () => {
    await runner.close();
  });
  const run = (req: CodeRequest) => runner.run(req);

  describe.each((["python", "bash", "ruby", "lua", "javascript", "typescript"] as const).map((l) => [l]))(
    "%s",
    (language) => {
      const program = PROGRAMS[language];

      it("gets vars, input and item, and gives its output", async () => {
        expect(await run(step(language, program.vars, GIVEN))).toMatchObject({
          ok: true,
          output: { s: "two words", list: [1, "a"], input: { q: 1 }, item: "it" },
        });
      });

      it("fails with the error it reports", async () => {
        const result = await run(step(language, program.fails));
        expect(result).toMatchObject({ ok: false, timedOut: false });
        expect(!result.ok && result.error).toMatch(FAILURE[language]);
      });

      it("is stopped at its timeout", async () => {
        expect(await run(step(language, program.loops, { timeoutMs: 300 }))).toMatchObject({
          ok: false,
          timedOut: true,
          error: "timed out after 0.3 s",
        });
      });

      it("returns the artifacts it wrote, with their relative paths", async () => {
        const result = await run(step(language, program.artifact));
        expect(result).toMatchObject({ ok: true, artifacts: [{ path: "report/out.txt", size: 5 }] });
        expect(result.artifacts[0]?.content.toString()).toBe("hello");
      });
    },
  );

  describe("cli", () => {
    const cli = (command: string[], extra: Partial<CodeRequest> = {}): CodeRequest => ({
      ...step("cli", ""),
      command,
      ...extra,
    });

    it("runs argv without a shell, with the variables in its environment", async () => {
      expect(await run(cli(["echo", "$HOME", "a  b", "*"]))).toMatchObject({ ok: true, output: "$HOME a  b *" });
      expect(await run(cli(["printenv", "WF_VAR_list"], GIVEN))).toMatchObject({ ok: true, output: [1, "a"] });
      expect(await run(cli(["printenv", "WF_ITEM"], GIVEN))).toMatchObject({ ok: true, output: { name: "it", n: 2 } });
    });

    it("fails on a non-zero exit with stderr's tail, and on a missing command", async () => {
      expect(await run(cli(["cat", "/no/such/file"]))).toMatchObject({
        ok: false,
        error: "exited with code 1: cat: /no/such/file: No such file or directory",
      });
      expect(await run(cli(["no-such-command-wf"]))).toMatchObject({
        ok: false,
        error: "exited with code 127: no-such-command-wf: command not found",
      });
      expect(await run(cli([]))).toMatchObject({
        ok: false,
        error: "a cli step needs `command`, a non-empty list of strings",
      });
    });

    it("is stopped at its timeout", async () => {
      expect(await run(cli(["sleep", "100"], { timeoutMs: 300 }))).toMatchObject({ ok: false, timedOut: true });
    });

    it("returns the artifacts it wrote (WF_ARTIFACTS_DIR is artifacts/ in its working directory)", async () => {
      const result = await run(cli(["cp", "/etc/os-release", "artifacts/os-release"]));
      expect(result).toMatchObject({ ok: true, artifacts: [{ path: "os-release" }] });
      expect(result.artifacts[0]?.content.equals(readFileSync("/etc/os-release"))).toBe(true);
    });
  });

  it("names the package to install for an interpreter the runner lacks", () => {
    expect(commandFor(step("ruby", "puts 1"), {})).toEqual({
      error: "ruby is not installed on the sandbox runner: apt-get install ruby",
    });
    expect(commandFor(step("lua", "print(1)"), {})).toEqual({
      error: "lua5.4 is not installed on the sandbox runner: apt-get install lua5.4",
    });
    expect(commandFor(step("ruby", "puts 1"), { ruby: "/usr/bin/ruby" })).toEqual({
      argv: ["/usr/bin/ruby", "-e", "puts 1"],
    });
  });
});
