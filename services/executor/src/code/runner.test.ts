import { mkdir, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { waitFor } from "@wf/shared/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCodeRunner } from "./index";
import { childProcesses, isAlive } from "./test-support";

describe("createCodeRunner", () => {
  let scratch: string;
  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), "wf-runner-test-"));
  });
  afterAll(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  it("close() ends the runs in flight, its processes and its directory", async () => {
    const tmpRoot = join(scratch, "root");
    await mkdir(tmpRoot);
    const runner = await createCodeRunner({ tmpRoot });
    const pidFile = join(scratch, "close.pids");
    const base = { vars: { pids: pidFile }, input: null, timeoutMs: 60_000 };
    const runs = [
      runner.run({ ...base, language: "javascript", code: "for (;;) {}" }),
      runner.run({ ...base, language: "bash", code: 'echo $$ >> "$WF_VAR_pids"; sleep 100' }),
      runner.run({ ...base, language: "python", code: 'import os, time\nopen(os.environ["WF_VAR_pids"], "a").write(f"{os.getpid()}\\n")\ntime.sleep(100)' }),
    ];
    const pids = await waitFor(async () => {
      const found = (await readFile(pidFile, "utf8").catch(() => "")).split("\n").filter(Boolean).map(Number);
      return found.length === 2 && found;
    });
    await runner.close();
    for (const result of await Promise.all(runs)) expect(result).toMatchObject({ ok: false });
    for (const pid of pids) await waitFor(() => !isAlive(pid), { what: `process ${pid} to be gone` });
    await waitFor(() => childProcesses(process.pid, "js-runner-process.mjs").length === 0, { what: "the JavaScript runner to be gone" });
    await waitFor(() => childProcesses(process.pid, "python-zygote.py").length === 0, { what: "the Python zygote to be gone" });
    expect(await readdir(tmpRoot)).toEqual([]);
    await expect(runner.run({ ...base, language: "javascript", code: "return 1" })).rejects.toThrow(/closed/);
  });
});
