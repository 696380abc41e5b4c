import { z } from "zod";
import { Usage } from "./usage";

/**
 * The debugger's contract: the breakpoints a debug run carries (in its start command and its
 * snapshot), the pause a hit writes into the snapshot, and the commands that end a pause.
 * `step` in a breakpoint is a step path: `name`, `loop[2].name` inside a foreach, or
 * `loop[*].name` for every item.
 */
const common = {
  /** Assigned when missing (`bp1`, `bp2`, … in list order, never an id the run has counted hits or values for). */
  id: z.string().min(1).max(64).optional(),
  /** Pause on the n-th hit only (1: the first). */
  hitCount: z.number().int().positive().optional(),
  enabled: z.boolean().default(true),
};
const StepPath = z.string().min(1).max(512);
const Expression = z.string().min(1).max(4096);

export const BREAKPOINT_TYPES = [
  "before_step",
  "after_step",
  "on_error",
  "conditional",
  "watch",
  "foreach_item",
  "on_retry",
  "tool_call",
  "usage",
] as const;
export type BreakpointType = (typeof BREAKPOINT_TYPES)[number];

export const Breakpoint = z.discriminatedUnion("type", [
  /** Before the step starts: its input rendered (for llm/agent steps the exact request). */
  z.strictObject({ ...common, type: z.literal("before_step"), step: StepPath }),
  /** After the step completes, before any later step sees its output (editable with `set`). */
  z.strictObject({ ...common, type: z.literal("after_step"), step: StepPath }),
  /** When a step fails, before its `retry` modifier or the failure is handled. */
  z.strictObject({ ...common, type: z.literal("on_error"), step: StepPath.optional() }),
  /** Before any step where the JSONata expression over `vars`, `steps`, `item` is truthy. */
  z.strictObject({ ...common, type: z.literal("conditional"), expression: Expression }),
  /** After the step whose completion changed the expression's value. */
  z.strictObject({ ...common, type: z.literal("watch"), expression: Expression }),
  /** Before the matching iteration of a foreach: by `index`, or where `expression` over `item` is truthy. */
  z.strictObject({
    ...common,
    type: z.literal("foreach_item"),
    step: StepPath,
    index: z.number().int().nonnegative().optional(),
    expression: Expression.optional(),
  }),
  /** Before a retry attempt (after its backoff). */
  z.strictObject({
    ...common,
    type: z.literal("on_retry"),
    step: StepPath.optional(),
    attempt: z.number().int().min(2).optional(),
  }),
  /** Before an agent calls an MCP tool; the arguments are editable. */
  z.strictObject({
    ...common,
    type: z.literal("tool_call"),
    step: StepPath.optional(),
    server: z.string().min(1).optional(),
    tool: z.string().min(1).optional(),
  }),
  /** Before the LLM call after which the execution's totals would pass a threshold. */
  z.strictObject({
    ...common,
    type: z.literal("usage"),
    tokens: z.number().int().positive().optional(),
    costUsd: z.number().positive().optional(),
  }),
]);
export type Breakpoint = z.output<typeof Breakpoint>;
export type BreakpointInput = z.input<typeof Breakpoint>;

export const DEBUG_IDLE_DEFAULT_S = 3_600;
export const DEBUG_IDLE_MAX_S = 86_400;

/** What a start asks for: the breakpoints, and how long a pause may wait for a command. */
export const DebugRequest = z.strictObject({
  breakpoints: z.array(Breakpoint).max(100).default([]),
  idleTimeout: z
    .number()
    .int()
    .positive()
    .max(DEBUG_IDLE_MAX_S)
    .default(DEBUG_IDLE_DEFAULT_S)
    .describe("Seconds a pause waits for a command before the execution is cancelled."),
});
export type DebugRequest = z.output<typeof DebugRequest>;

/** Where in a step's life a breakpoint hit. */
export const PausePhase = z.enum(["before", "after", "error", "retry", "item", "tool_call", "llm_call"]);
export type PausePhase = z.infer<typeof PausePhase>;

/** What the pause is about: the parts that apply to its breakpoint's type. */
export const PauseContext = z.object({
  vars: z.record(z.string(), z.unknown()),
  /** Outputs of the steps completed so far, by path. */
  outputs: z.record(z.string(), z.unknown()),
  /** The step's rendered input; for an llm or agent step, the messages that would be sent. */
  input: z.unknown().optional(),
  /** The paused step's output (after_step, watch). */
  output: z.unknown().optional(),
  item: z.unknown().optional(),
  index: z.number().int().nonnegative().optional(),
  error: z.string().optional(),
  attempt: z.number().int().positive().optional(),
  toolCall: z.object({ server: z.string(), tool: z.string(), arguments: z.unknown() }).optional(),
  usage: Usage.optional(),
  /** A watch's expression value before and after the step. */
  watch: z.object({ expression: z.string(), before: z.unknown(), after: z.unknown() }).optional(),
  /** on_error: whether the step's `retry` may try the failure again. */
  retryable: z.boolean().optional(),
});
export type PauseContext = z.infer<typeof PauseContext>;

export const PauseRecord = z.object({
  /** Unique per pause: a command naming another pause is refused (409). */
  id: z.string(),
  /** The breakpoint that hit, or `step` for the pause a `step` or `step_into` command asked for. */
  breakpointId: z.string(),
  type: z.enum(BREAKPOINT_TYPES),
  stepPath: z.string(),
  phase: PausePhase,
  /**
   * Which time the phase came at the step: the attempt (error, retry), the item's index, the tool call's or LLM call's
   * number; 0 otherwise.
   */
  occurrence: z.number().int().nonnegative().default(0),
  pausedAt: z.number(),
  context: PauseContext,
});
export type PauseRecord = z.infer<typeof PauseRecord>;

export const DEBUG_COMMANDS = ["continue", "step", "step_into", "skip", "set", "retry", "abort"] as const;
export type DebugCommandName = (typeof DEBUG_COMMANDS)[number];

/** The body of `POST /api/console/executions/{id}/debug/<command>`; `pauseId` pins the pause it answers. */
export const DebugCommandBody = z.strictObject({
  pauseId: z.string().optional(),
  /** skip: the step's output (it then ends COMPLETED, else SKIPPED); set: the paused step's output (after_step). */
  output: z.unknown().optional(),
  /** set: variables to change (merged over `vars`). */
  vars: z.record(z.string(), z.unknown()).optional(),
  /** set: a tool call's arguments (tool_call). */
  arguments: z.unknown().optional(),
  /** set: the step's rendered input (before_step). */
  input: z.unknown().optional(),
});
export type DebugCommandBody = z.infer<typeof DebugCommandBody>;

/** An edit made with `set` (or `skip` with an output): never overwrites what the run recorded before it. */
export const DebugEdit = z.object({
  pauseId: z.string(),
  stepPath: z.string(),
  by: z.string(),
  at: z.number(),
  field: z.enum(["vars", "output", "arguments", "input"]),
  before: z.unknown(),
  after: z.unknown(),
});
export type DebugEdit = z.infer<typeof DebugEdit>;

/** The largest value (as JSON) a `set` or `skip` may carry in one field. */
export const DEBUG_EDIT_MAX_BYTES = 32 * 1024;

/**
 * A command that won its pause (claimPause, by compare-and-set on the snapshot): the executor
 * carries it out when its message arrives, and only while the snapshot still holds it.
 */
export const DebugClaim = z.object({
  id: z.string(),
  pauseId: z.string(),
  command: z.enum(DEBUG_COMMANDS),
  body: DebugCommandBody,
  by: z.string(),
  at: z.number(),
  /**
   * When the run was last parked (held by nobody) while the claim stood: the claim's command, turned back while the run
   * was held, comes then. A claim's age counts from the later of this and `at` (standingClaim).
   */
  releasedAt: z.number().optional(),
});
export type DebugClaim = z.infer<typeof DebugClaim>;

/** Where an llm or agent step's attempt (its number) stood before a tool or LLM call: its conversation so far. */
const AttemptCheckpoint = z.object({ attempt: z.number().int().nonnegative(), state: z.unknown() });

/**
 * A point a pause was resumed from, and what the command that resumed it asked for there: done
 * the first time the run comes back to the point, though another branch may pause before that.
 */
export const ResumedFrom = z.object({
  breakpointId: z.string(),
  stepPath: z.string(),
  phase: PausePhase,
  pauseId: z.string().optional(),
  occurrence: z.number().int().nonnegative().default(0),
  command: z.enum(DEBUG_COMMANDS).optional(),
  /**
   * skip: the output the step ends COMPLETED with (absent: SKIPPED); at a tool or LLM call, what the call gives the
   * model instead, kept once passed until the attempt ends (a takeover runs it again, coming back to the call).
   */
  output: z.unknown().optional(),
  /** on_error: the failure the pause held, handled as the command says. */
  error: z.string().optional(),
  retryable: z.boolean().optional(),
  /**
   * tool_call: the tool the paused call asked for. An attempt run again may ask for another tool at that call (the
   * model answers anew): that one is a call of its own, which the command does not touch.
   */
  tool: z.object({ server: z.string(), tool: z.string() }).optional(),
  /**
   * tool_call: the attempt, run again, asked for another tool at this call, so the call paused at is not made in it:
   * the command is done with, and applies at no later run of the attempt either (one asking for `tool` there again
   * makes a new call). Kept, passed, only to say that it paused.
   */
  replaced: z.literal(true).optional(),
  /**
   * Before a tool or LLM call: the pause's `checkpoint`, moved here by the command if it fits beside what the waiting
   * points keep, so that a pause written before the run comes back to the call does not take it. Dropped there.
   */
  checkpoint: AttemptCheckpoint.optional(),
  /**
   * The run went past the point, doing what the command asked: it never pauses there again. A call's attempt run again
   * (by a takeover, or from its start at a later pause's resume) does there what the command asked again.
   */
  passed: z.boolean().default(false),
});
export type ResumedFrom = z.infer<typeof ResumedFrom>;

/** A watch's value as the snapshot keeps it: a hash to compare, and the value, cut. */
const Watched = z.object({ hash: z.string(), value: z.unknown() });

/** A debug run's state in its snapshot. */
export const DebugState = z.object({
  breakpoints: z.array(Breakpoint),
  /**
   * Who last replaced the breakpoints: a replacement while the run is held is announced (`debug_breakpoints`) by its
   * holder, which numbers the run's events, when it takes the replacement up.
   */
  breakpointsBy: z.string().nullable().default(null),
  /**
   * How many times the breakpoints were replaced: each change is based on the revision it replaces and written by
   * compare-and-set on the record (changeBreakpoints), so changes apply in one order and a stale one is refused.
   */
  breakpointsRevision: z.number().int().nonnegative().default(0),
  /** The revision the last `debug_breakpoints` event announced: whoever writes the record next announces a later one. */
  breakpointsAnnounced: z.number().int().nonnegative().default(0),
  idleTimeout: z.number().int().positive(),
  /** Hits per breakpoint id, for `hitCount`. */
  hits: z.record(z.string(), z.number().int().nonnegative()).default({}),
  pause: PauseRecord.nullable().default(null),
  /** What the last command asked the run to do until its next pause (step: pause at the next boundary). */
  mode: z.enum(["run", "step", "step_into"]).default("run"),
  /**
   * The points pauses were resumed from, oldest first (the last one's command sets `mode`): the
   * run never pauses at one of them again, until a new attempt of its step (or of a step holding
   * it) passes there anew. The oldest passed ones give way past a hundred, but for the calls of a step still running.
   */
  resumed: z.array(ResumedFrom).default([]),
  edits: z.array(DebugEdit).default([]),
  /**
   * Failures of steps in other branches that came while the run was paused: each waits at its failure (its attempt is
   * not run again) until the run comes back there with no pause, and is judged against the breakpoints then.
   */
  held: z
    .array(
      z.object({
        stepPath: z.string(),
        occurrence: z.number().int().nonnegative(),
        error: z.string(),
        retryable: z.boolean(),
        /**
         * Judged with no pause there, its retry or its failure not recorded yet: the number each breakpoint (by id)
         * gave its hit, not counted again.
         */
        hits: z.record(z.string(), z.number().int().positive()).optional(),
      }),
    )
    .default([]),
  /**
   * Points other branches came to while the run was paused where a breakpoint's hit pauses (after a step, before a tool
   * or LLM call), in the order they came: each waits there (the step's result kept, nothing after it run) until the run
   * comes back with no pause, and is judged then, so that the hit pauses in its turn rather than being passed. The
   * turns go in this order: a point whose hit pauses waits on while one before it that still pauses (mayPauseAt) has
   * not had its turn, unless the run cannot come back to that one.
   */
  waiting: z
    .array(
      z.object({
        stepPath: z.string(),
        phase: PausePhase,
        occurrence: z.number().int().nonnegative(),
        /**
         * tool_call: the tool the call asks for. The attempt run again (a takeover, its conversation not kept) may ask
         * for another tool there: that is a new call, judged anew, and this one, never made, waits no more. Absent in
         * records written before it was kept: taken as any tool.
         */
        tool: z.object({ server: z.string(), tool: z.string() }).optional(),
        /**
         * The watches (by breakpoint id) whose value the step's completion changed, from and to: `watched` moved on
         * to the new value at once, so that no other step takes the change as its own.
         */
        watches: z.record(z.string(), z.object({ before: Watched, after: Watched })).optional(),
        /** Before a tool or LLM call: the attempt's conversation so far, as a pause's `checkpoint` keeps it. */
        checkpoint: AttemptCheckpoint.optional(),
        /**
         * The number each breakpoint (by id) gave this hit, counted as the branch came here behind the pause: its
         * `hitCount` is judged on it in the point's turn, and it is not counted again.
         */
        hits: z.record(z.string(), z.number().int().positive()).optional(),
        /**
         * After a step, watches enabled, until the point is first judged: the steps (by name) its expressions saw not
         * completed as the step completed (null: no state), so that a replay judges its watches on what the step gave,
         * not on steps of other branches that completed since.
         */
        unfinished: z.record(z.string(), z.unknown()).optional(),
      }),
    )
    .default([]),
  /**
   * Per llm or agent step under way and kind of call: the last call of attempt `attempt` (its number) where a
   * breakpoint's hit was counted and the run went on. A takeover runs an attempt that was in flight again: it passes
   * those calls, and the ones before them, without counting hits again. Dropped when the attempt ends.
   */
  callsPassed: z
    .array(
      z.object({
        stepPath: z.string(),
        phase: z.enum(["tool_call", "llm_call"]),
        attempt: z.number().int().nonnegative(),
        occurrence: z.number().int().positive(),
        /**
         * tool_call: the tool each of those calls asked for, by number (the first at 0; null: not known, in a record
         * written before the step's calls were read for it). The attempt run again may ask for another tool at one:
         * that is a new call, whose hits count, as a resumed call's command applies to its own tool only.
         */
        tools: z.array(z.object({ server: z.string(), tool: z.string() }).nullable()).optional(),
      }),
    )
    .default([]),
  /**
   * Step boundaries (before a step, an item or a retry's attempt) where breakpoints' hits were counted and the run goes
   * on, until it records going past (the step's state, the item's first step's, the attempt's start): the number each
   * breakpoint (by id) gave its hit, so that a takeover from a write between the two does not count them again.
   */
  boundariesPassing: z
    .array(
      z.object({
        stepPath: z.string(),
        phase: z.enum(["before", "item", "retry"]),
        occurrence: z.number().int().nonnegative(),
        hits: z.record(z.string(), z.number().int().positive()),
      }),
    )
    .default([]),
  /** The command that won the current pause, until the executor has carried it out. */
  claimed: DebugClaim.nullable().default(null),
  /** The id of the last claim carried out: a redelivered command finds it here and changes nothing. */
  appliedClaim: z.string().nullable().default(null),
  /**
   * Where an llm or agent step's attempt stood when it paused before a tool call or an LLM call
   * (its conversation so far), so that it goes on from there rather than calling again. The command
   * that resumes the pause moves it to its resumed point where it fits (ResumedFrom.checkpoint).
   */
  checkpoint: AttemptCheckpoint.extend({ stepPath: z.string() }).nullable().default(null),
  /** The last value of each `watch` breakpoint's expression (a hash to compare, and the value, cut). */
  watched: z.record(z.string(), Watched).default({}),
});
export type DebugState = z.infer<typeof DebugState>;

/**
 * Breakpoints as given, with ids assigned where missing (`bp1`, `bp2`, … by position, skipping ids the list gives and
 * those in `taken`).
 */
export function withBreakpointIds(breakpoints: readonly Breakpoint[], taken: Iterable<string> = []): Breakpoint[] {
  const given = breakpoints.flatMap((b) => (b.id ? [b.id] : []));
  const used = new Set([...given, ...taken]);
  let n = 0;
  return breakpoints.map((b) => {
    if (b.id) return b;
    let id: string;
    do id = `bp${++n}`;
    while (used.has(id));
    used.add(id);
    return { ...b, id };
  });
}

/** Whether the `n`-th hit of `bp` pauses: every hit without a `hitCount`, else the `hitCount`-th only. */
export function hitPauses(bp: Pick<Breakpoint, "hitCount">, n: number): boolean {
  return bp.hitCount === undefined || n === bp.hitCount;
}

/**
 * The breakpoint type each phase evaluates without an expression: how the executor matches a point, and how a point
 * waiting its turn (or a failure held) is listed.
 */
export const BREAKPOINT_TYPE_AT: Partial<Record<PausePhase, BreakpointType>> = {
  before: "before_step",
  after: "after_step",
  error: "on_error",
  retry: "on_retry",
  item: "foreach_item",
  tool_call: "tool_call",
  llm_call: "usage",
};

type WaitingPoint = DebugState["waiting"][number];

/**
 * The enabled breakpoints that may pause at a point waiting its turn (or a failure held): of the phase's type on its
 * step (and a tool call's tool), and the watches its step changed, but for one whose `hitCount` the number it gave the
 * hit (`hits`) is not. A point recorded before tool calls' tools were has none: a tool_call breakpoint naming a server
 * or a tool counts there. What the console lists as waiting, and what holds later points back until it has had its
 * turn.
 */
export function mayPauseAt(
  breakpoints: readonly Breakpoint[],
  point: Pick<WaitingPoint, "stepPath" | "phase" | "watches" | "hits" | "tool">,
): { id: string; type: BreakpointType }[] {
  return breakpoints.flatMap((bp) => {
    if (!bp.enabled) return [];
    const number = point.hits?.[bp.id!];
    if (number !== undefined && !hitPauses(bp, number)) return [];
    const hits =
      bp.type === "watch"
        ? point.watches?.[bp.id!] !== undefined
        : BREAKPOINT_TYPE_AT[point.phase] === bp.type &&
          (!("step" in bp) || bp.step === undefined || stepMatches(bp.step, point.stepPath)) &&
          (bp.type !== "tool_call" || !point.tool || ofTool(bp, point.tool));
    return hits ? [{ id: bp.id!, type: bp.type }] : [];
  });
}

/** Whether a tool_call breakpoint's server and tool (when it names them) are those of `tool`. */
function ofTool(bp: { server?: string; tool?: string }, tool: { server: string; tool: string }): boolean {
  return (bp.server === undefined || bp.server === tool.server) && (bp.tool === undefined || bp.tool === tool.tool);
}

/** The debug state a start asks for, before anything ran. */
export function newDebugState(req: DebugRequest): DebugState {
  return {
    breakpoints: withBreakpointIds(req.breakpoints),
    breakpointsBy: null,
    breakpointsRevision: 0,
    breakpointsAnnounced: 0,
    idleTimeout: req.idleTimeout,
    hits: {},
    pause: null,
    mode: "run",
    resumed: [],
    edits: [],
    held: [],
    waiting: [],
    callsPassed: [],
    boundariesPassing: [],
    claimed: null,
    appliedClaim: null,
    checkpoint: null,
    watched: {},
  };
}

/**
 * When the current pause has waited `idleTimeout` without a command: counted from the pause,
 * or from the last edit made at it (a `set` is activity too). Null when nothing is paused.
 */
export function idleDue(debug: DebugState): number | null {
  const pause = debug.pause;
  if (!pause) return null;
  let last = pause.pausedAt;
  for (const e of debug.edits) if (e.pauseId === pause.id && e.at > last) last = e.at;
  return last + debug.idleTimeout * 1000;
}

/** Patterns with `[*]`, compiled once (bounded: breakpoints come and go with debug runs). */
const compiled = new Map<string, RegExp>();
const COMPILED_MAX = 1_000;

/**
 * Whether a breakpoint's step path names the step at `path`: the path as the run records it
 * (`name`, `loop[2].name` inside a foreach), where `[*]` stands for any iteration.
 */
export function stepMatches(pattern: string, path: string): boolean {
  if (!pattern.includes("[*]")) return pattern === path;
  let re = compiled.get(pattern);
  if (re === undefined) {
    re = new RegExp(`^${pattern.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replaceAll("\\[\\*\\]", "\\[\\d+\\]")}$`);
    if (compiled.size >= COMPILED_MAX) compiled.clear();
    compiled.set(pattern, re);
  }
  return re.test(path);
}
