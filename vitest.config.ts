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
    maxWorkers: 3,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ["default", "./test/support/summary-reporter.ts"],
  },
});
