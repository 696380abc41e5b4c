/**
 * One sandbox runner per executor in the tests, not the default two: a runner and its JavaScript
 * host cost about a second of CPU to start, the suite starts a runtime or a service in most files,
 * and their executions seldom need a second runner. Two runners, an execution's runs kept on one,
 * are tested in services/executor/src/code/runner.test.ts; a test that wants more sets
 * WF_SANDBOX_POOL itself.
 */
export const ONE_SANDBOX_RUNNER = { WF_SANDBOX_POOL: "1" } as const;
