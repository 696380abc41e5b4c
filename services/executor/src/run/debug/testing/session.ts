import { CasConflictError } from "@wf/shared/errors";
import {
  claimPause,
  DebugRequest,
  newDebugState,
  type BreakpointInput,
  type ClaimResult,
  type DebugCommandBody,
  type DebugCommandName,
  type ExecutionSnapshot,
  type PauseRecord,
  type StepState,
} from "@wf/shared/execution";
import type { Store } from "@wf/shared/store";
import { FakeEffects, MemoryCommitter, RunUnderTest, snapshotOf, workflowOf } from "../../fake-run";
import { applyClaimedCommand, type Applied } from "../commands";

/** The executions of a store holding one snapshot: compare-and-set as the adapters do. */
export function storeHolding(snap: ExecutionSnapshot): { store: Store; stored: () => ExecutionSnapshot } {
  let value = structuredClone(snap);
  let version = 1;
  const executions = {
    get: async (id: string) => (id === value.id ? { value: structuredClone(value), version } : null),
    update: async (next: ExecutionSnapshot, expected: number) => {
      if (expected !== version) throw new CasConflictError(next.id);
      value = structuredClone(next);
      return ++version;
    },
  };
  return { store: { executions } as unknown as Store, stored: () => structuredClone(value) };
}

/**
 * A debug run over the fake effects, and a debugger driving it as the edge and the executor do:
 * a command is claimed on the stored snapshot (claimPause), carried out on it
 * (applyClaimedCommand), and a resuming one starts the next run from it, as its wake would.
 */
export class Session {
  t: RunUnderTest;
  applied: Applied | null = null;
  /** Every command handled twice, as a redelivered message is: the second must change nothing. */
  redeliver = false;
  /** Events written by the commands (debug_resumed, debug_edited). */
  readonly commandEvents: { type: string; step?: string; data: Record<string, unknown> }[] = [];

  constructor(
    steps: unknown[],
    breakpoints: BreakpointInput[],
    opts: { vars?: Record<string, unknown>; variables?: unknown; agents?: unknown[]; idleTimeout?: number } = {},
  ) {
    const workflow = workflowOf({
      name: "t",
      steps,
      ...(opts.agents ? { agents: opts.agents } : {}),
      ...(opts.variables ? { variables: opts.variables } : {}),
    });
    const snap = snapshotOf(workflow, opts.vars ?? {});
    snap.debug = newDebugState(
      DebugRequest.parse({ breakpoints, ...(opts.idleTimeout ? { idleTimeout: opts.idleTimeout } : {}) }),
    );
    this.t = new RunUnderTest(workflow, new FakeEffects(), snap);
  }

  get effects(): FakeEffects {
    return this.t.effects;
  }

  get snap(): ExecutionSnapshot {
    return this.t.snap;
  }

  get pause(): PauseRecord {
    const pause = this.snap.debug?.pause;
    if (!pause) throw new Error("not paused");
    return pause;
  }

  run(): Promise<"terminal" | "parked"> {
    return this.t.run.run();
  }

  step(path: string): StepState {
    const st = this.snap.steps[path];
    if (!st) throw new Error(`no state recorded for \`${path}\``);
    return st;
  }

  async send(command: DebugCommandName, body: DebugCommandBody = {}, pauseId?: string): Promise<ClaimResult> {
    const { store, stored } = storeHolding(this.snap);
    const claimed = await claimPause(store, this.snap.id, pauseId, { command, body, by: "ada" });
    if (!claimed.ok) return claimed;
    const guest = new MemoryCommitter(stored());
    this.applied = applyClaimedCommand(guest, claimed.claim.id, Date.now());
    if (this.redeliver && applyClaimedCommand(guest, claimed.claim.id, Date.now()) !== null)
      throw new Error(`the ${command} was carried out twice`);
    this.commandEvents.push(...guest.events);
    this.t = this.t.resumed(guest.snap);
    if (this.applied === "abort") await this.t.run.finishCancelled("execution aborted in the debugger by ada");
    return claimed;
  }

  /** Sends a resuming command and runs the woken run to its next park or end. */
  async resume(command: DebugCommandName, body: DebugCommandBody = {}): Promise<"terminal" | "parked"> {
    const claimed = await this.send(command, body);
    if (!claimed.ok) throw new Error(claimed.message);
    return this.run();
  }
}
