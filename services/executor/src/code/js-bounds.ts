import { availableParallelism } from "node:os";
import type { RunnerLimits } from "./cgroup";
import type { JsPool } from "./js-run-clock";
import { describeShares, poolShares, type PoolShares } from "./pool-shares";
import { DEFAULT_LIMITS } from "./types";

// Apart from js-steps.ts: the sandbox runner sizes its cgroup and logs these bounds, and must not
// load isolated-vm to do so (its JavaScript host runs the isolates).

/**
 * Isolates kept idle per memory limit, and runs at once before SLOT_WAIT_MS: one per core, 2 to 8.
 * Each isolate runs on a thread of its own and every run is a hand-off to that thread and back,
 * so isolates beyond the cores only add hand-offs: on 2 cores, 8 isolates cost a third more of a
 * runner's CPU per light step than 2 did end to end (BENCH_PARTS=e2e).
 */
export const MAX_IDLE_ISOLATES = Math.min(8, Math.max(2, availableParallelism()));

/** The isolates a runner may have at once, per core it keeps idle ones for. */
const ISOLATES_PER_SLOT = 4;
/** Owners take turns at the isolates, each up to its plan's share of the runner's limit. */
export const JS_SHARES = poolShares(MAX_IDLE_ISOLATES, MAX_IDLE_ISOLATES * ISOLATES_PER_SLOT);
/** What a runner's JavaScript host runs at once, as its runner and the host tell their clients (js-run-clock.ts). */
export const JS_POOL: JsPool = { size: MAX_IDLE_ISOLATES, limit: JS_SHARES.limit };
/** The runner's own memory besides its isolates' heaps: Node, the egress proxy, the zygotes. */
const RUNNER_BASE_MB = 512;

/**
 * The runner process's cgroup limits: its isolates' heaps at the default limit and its own base;
 * all the cores but half of one, so that the service keeps some CPU whatever its steps do.
 */
export function runnerBounds(shares: PoolShares = JS_SHARES): RunnerLimits {
  return {
    memoryMb: shares.limit * DEFAULT_LIMITS.jsMemoryMb + RUNNER_BASE_MB,
    cpus: Math.max(1, availableParallelism() - 0.5),
  };
}

/**
 * The bounds of JavaScript steps on a runner, for the start-up log; `uid`: its JavaScript host's, if it gave it one.
 */
export function describeJsBounds(uid: number | undefined, shares: PoolShares = JS_SHARES): string {
  const host = uid === undefined ? "the runner's uid" : `uid ${uid}`;
  return (
    `JavaScript: in a host process of its own (${host}, the runner's cgroups), heap and array buffers per step (isolate), no WebAssembly, a fresh global scope over frozen intrinsics per step, ` +
    `${shares.limit} isolates at once per runner, of which an owner holds ${describeShares(shares)}`
  );
}
