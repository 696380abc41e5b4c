import type { Reporter, TestModule } from "vitest/node";

/**
 * Ends the run with one plain line, `tests: N passed, N failed, N skipped`, that any CI can
 * read whatever the runner; vitest's own summary comes just before it.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const m of modules) {
      for (const t of m.children.allTests()) {
        const state = t.result().state;
        if (state === "passed") passed++;
        else if (state === "failed") failed++;
        else skipped++;
      }
      if (m.state() === "failed" && ![...m.children.allTests()].length) failed++;
    }
    // At exit, so it is the very last line, after vitest's own summary.
    process.once("exit", () => process.stdout.write(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`));
  }
}
