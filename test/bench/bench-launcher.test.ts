import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { TEST_BUILD_ENV } from "@wf/testing";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const run = promisify(execFile);

describe("npm run bench (main.ts)", () => {
  const dir = mkdtempSync(join(tmpdir(), "wf-bench-launcher-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("runs the benchmarks from their bundle beside the services' bundles, and writes where BENCH_OUTPUT says", async () => {
    const output = join(dir, "latest.json");
    const { stdout } = await run(process.execPath, ["--import", "tsx", "test/bench/main.ts"], {
      cwd: ROOT,
      env: { ...process.env, BENCH_QUICK: "1", BENCH_PARTS: "timers", BENCH_OUTPUT: output },
      timeout: 120_000,
    });
    expect(stdout).toContain(`results: ${output}`);
    const written = JSON.parse(readFileSync(output, "utf8")) as { runsFrom: string; timers?: unknown };
    // The run's own build (vitest's global setup), so the helpers it starts are those beside it.
    expect(written.runsFrom).toBe(join(process.env[TEST_BUILD_ENV]!, "bench.js"));
    expect(written.timers).toBeDefined();
  }, 150_000);

  it("exits with the run's failure when a part is unknown", async () => {
    const failed = await run(process.execPath, ["--import", "tsx", "test/bench/main.ts"], {
      cwd: ROOT,
      env: { ...process.env, BENCH_QUICK: "1", BENCH_PARTS: "nope", BENCH_OUTPUT: join(dir, "never.json") },
      timeout: 120_000,
    }).then(
      () => null,
      (err: { code?: number; stderr?: string }) => err,
    );
    expect(failed?.code).toBe(1);
    expect(failed?.stderr).toContain("BENCH_PARTS: unknown part(s) nope");
  }, 150_000);
});
