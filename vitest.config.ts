import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: [
      "shared/**/*.test.ts",
      "testing/**/*.test.ts",
      "services/**/*.test.ts",
      "cli/**/*.test.ts",
      "test/**/*.test.ts",
    ],
    exclude: ["**/node_modules/**", ".data/**", ".tmp/**"],
    pool: "forks",
    // The entry points bundled once, for the CLI and service processes tests start.
    globalSetup: ["./test/support/test-build.ts"],
    // Most files wait on processes, servers and timers, not the CPU: more at once than cores.
    // minWorkers as many: vitest 3.2 retires an idle worker that ran files without isolation with
    // an unhandled "Terminating worker thread".
    maxWorkers: 3,
    minWorkers: 3,
    // A worker runs file after file in one process and one module graph: importing each file's
    // graph afresh was ~40 % of the suite's CPU. setupFiles checks that each file leaves its worker
    // as it found it (docs/operations.md#development).
    isolate: false,
    setupFiles: ["./test/support/shared-worker.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ["default", "./test/support/summary-reporter.ts"],
  },
});
