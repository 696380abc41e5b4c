import type {
  DebugClaim,
  DebugEdit,
  DebugState,
  ExecutionSnapshot,
  PausePhase,
  PauseRecord,
  ResumedFrom,
} from "@wf/shared/execution";
import { cutValue, jsonBytes } from "../result-limits";
import type { RunCommitter } from "../committer";
import { keptBytes } from "./pause";

/** What carrying out a claimed command asks of the caller next. */
export type Applied =
  /** The pause is over: wake the run (a resume command), which goes on as `debug.resumed` says. */
  | "resume"
  /** `abort`: the run is to be cancelled. */
  | "abort"
  /** `set`: edits made, the pause goes on (its idle timer counts from now). */
  | "edited";

/** How many resumed points a debug run keeps (see remember). */
const RESUMED_KEPT = 100;

/**
 * An llm or agent step's calls: a takeover runs an attempt in flight again from its start, coming back to calls it went
 * past, where what a command asked must hold again (its arguments set, its skip): kept until the attempt ends.
 */
export const CALLS: ReadonlySet<PausePhase> = new Set(["tool_call", "llm_call"]);

/** Values an edit only records (the snapshot holds the live ones) are kept this small in `debug.edits`. */
const RECORDED_EDIT_BYTES = 1024;

/**
 * Carries out the claimed command `claimId` on the snapshot of a parked debug run, deterministic
 * over the snapshot: null when the snapshot does not hold that claim (carried out already, by an
 * earlier delivery, or given up). The run itself does what a resume asks at the paused point.
 */
export function applyClaimedCommand(
  committer: Pick<RunCommitter, "snap" | "emit" | "limits">,
  claimId: string,
  now: number,
): Applied | null {
  const snap = committer.snap;
  const d = snap.debug;
  const pause = d?.pause;
  const claim = d?.claimed;
  if (!d || !pause || !claim || claim.id !== claimId || claim.pauseId !== pause.id) return null;
  d.claimed = null;
  d.appliedClaim = claim.id;
  if (claim.command === "set") {
    const edits = applyEdits(snap, d, pause, claim, now);
    committer.emit("debug_edited", pause.stepPath, {
      pauseId: pause.id,
      by: claim.by,
      fields: edits.map((e) => e.field),
    });
    return "edited";
  }
  if (claim.command === "skip" && claim.body.output !== undefined) {
    record(d, pause, claim, now, "output", snap.steps[pause.stepPath]?.output ?? null, claim.body.output);
  }
  d.pause = null;
  committer.emit("debug_resumed", pause.stepPath, { pauseId: pause.id, command: claim.command, by: claim.by });
  if (claim.command === "abort") {
    d.checkpoint = null;
    return "abort";
  }
  // The pause's conversation goes with its resumed point until the run comes back to the call, so that a pause written
  // before that (another branch's) does not take it. One the points the run comes back to have no room for stays in
  // the pause's slot, which only such a pause takes (its attempt then starts over).
  const checkpoint = d.checkpoint;
  const moved = checkpoint !== null && keptBytes(d) + jsonBytes(checkpoint.state) <= committer.limits.toolCallBytes;
  if (moved) d.checkpoint = null;
  d.mode = claim.command === "step" ? "step" : claim.command === "step_into" ? "step_into" : "run";
  remember(snap, d, {
    breakpointId: pause.breakpointId,
    stepPath: pause.stepPath,
    phase: pause.phase,
    pauseId: pause.id,
    occurrence: pause.occurrence,
    command: claim.command,
    ...(claim.command === "skip" && claim.body.output !== undefined ? { output: claim.body.output } : {}),
    ...(pause.phase === "error"
      ? { error: pause.context.error ?? "failed", retryable: pause.context.retryable ?? false }
      : {}),
    ...(pause.phase === "tool_call" && pause.context.toolCall
      ? { tool: { server: pause.context.toolCall.server, tool: pause.context.toolCall.tool } }
      : {}),
    ...(moved ? { checkpoint: { attempt: checkpoint.attempt, state: checkpoint.state } } : {}),
    passed: false,
  });
  // Time stops while paused: the deadlines of the steps under way move on by the pause.
  const paused = Math.max(0, now - pause.pausedAt);
  for (const st of Object.values(snap.steps))
    if (st.status === "RUNNING" && st.deadline !== null) st.deadline += paused;
  return "resume";
}

/**
 * Adds a resumed point to `debug.resumed`. Past RESUMED_KEPT the oldest the run is past give way:
 * a person answered each pause, so only a long session gets there, and its oldest points lie far behind the run.
 * But not a call of a step still running (unless replaced, by another tool's call there): a takeover runs its attempt
 * again and must do there what the command asked (CALLS). Those kept past the bound are calls paused at in the
 * attempts in flight, each answered by a person: an attempt makes at most its agent's max_turns LLM calls and the tool
 * calls they ask for, and the attempts in flight are the steps running at once (a parallel's branches, a foreach's
 * concurrency). They go once their attempt ends.
 */
function remember(snap: ExecutionSnapshot, d: DebugState, resumed: ResumedFrom): void {
  d.resumed.push(resumed);
  const inFlight = (r: ResumedFrom) => CALLS.has(r.phase) && snap.steps[r.stepPath]?.status === "RUNNING";
  for (let i = 0; d.resumed.length > RESUMED_KEPT && i < d.resumed.length;) {
    const r = d.resumed[i]!;
    if (r.passed && (r.replaced || !inFlight(r))) d.resumed.splice(i, 1);
    else i++;
  }
}

/** The edits of a `set`, made where the run reads them, each recorded in `debug.edits`. */
function applyEdits(
  snap: ExecutionSnapshot,
  d: DebugState,
  pause: PauseRecord,
  claim: DebugClaim,
  now: number,
): DebugEdit[] {
  const made: DebugEdit[] = [];
  const { vars, output, input, arguments: args } = claim.body;
  if (vars !== undefined) {
    const before = Object.fromEntries(Object.keys(vars).map((k) => [k, snap.vars[k] ?? null]));
    // Replaced, not changed: variables named by reference are frozen (ExecutionRepo.nameVariables).
    snap.vars = { ...snap.vars, ...vars };
    pause.context.vars = { ...pause.context.vars, ...vars };
    made.push(record(d, pause, claim, now, "vars", before, vars));
  }
  const st = snap.steps[pause.stepPath];
  if (output !== undefined && st) {
    made.push(record(d, pause, claim, now, "output", st.output ?? null, output));
    st.output = output;
    pause.context.output = output;
  }
  if (input !== undefined) {
    // The step reads its input from the last such edit: the earlier ones are only a record now.
    for (const e of d.edits) if (e.field === "input" && e.stepPath === pause.stepPath) e.after = recorded(e.after);
    made.push(record(d, pause, claim, now, "input", pause.context.input ?? null, input, true));
    pause.context.input = input;
  }
  if (args !== undefined && pause.context.toolCall) {
    for (const e of d.edits) if (e.field === "arguments" && e.pauseId === pause.id) e.after = recorded(e.after);
    made.push(record(d, pause, claim, now, "arguments", pause.context.toolCall.arguments, args, true));
    pause.context.toolCall.arguments = args;
  }
  return made;
}

/** Adds an edit to `debug.edits`; `live`: the run reads `after` from here, so it is kept whole. */
function record(
  d: DebugState,
  pause: PauseRecord,
  claim: DebugClaim,
  now: number,
  field: DebugEdit["field"],
  before: unknown,
  after: unknown,
  live = false,
): DebugEdit {
  const edit: DebugEdit = {
    pauseId: pause.id,
    stepPath: pause.stepPath,
    by: claim.by,
    at: now,
    field,
    before: recorded(before),
    after: live ? after : recorded(after),
  };
  d.edits.push(edit);
  return edit;
}

function recorded(value: unknown): unknown {
  return cutValue(value, RECORDED_EDIT_BYTES, "value");
}

/** The value the last `set input` gave the step at `path`, if any. */
export function editedInput(d: DebugState, path: string): { value: unknown } | undefined {
  for (let i = d.edits.length - 1; i >= 0; i--) {
    const e = d.edits[i]!;
    if (e.field === "input" && e.stepPath === path) return { value: e.after };
  }
  return undefined;
}

/** The arguments the last `set arguments` at pause `pauseId` gave its tool call, if any. */
export function editedArguments(d: DebugState, pauseId: string): { value: unknown } | undefined {
  for (let i = d.edits.length - 1; i >= 0; i--) {
    const e = d.edits[i]!;
    if (e.field === "arguments" && e.pauseId === pauseId) return { value: e.after };
  }
  return undefined;
}
