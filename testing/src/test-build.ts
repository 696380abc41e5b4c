/** Where vitest's global setup (test/support/test-build.ts) puts the test run's bundles, for the processes tests fork. */
export const TEST_BUILD_ENV = "WF_TEST_BUILD_DIR";

/**
 * `createCodeRunner`'s `bundleDir`: the test run's bundles of the sandbox runner and its JavaScript host. Forked from
 * their sources through tsx, a runner and its host cost ~2 s more CPU to start on a slow 2-core machine. Empty when the
 * global setup did not run; runner.test.ts forks from the sources, as a service run by tsx does.
 */
export function runnerBundles(): { bundleDir?: string } {
  const dir = process.env[TEST_BUILD_ENV];
  return dir ? { bundleDir: dir } : {};
}
