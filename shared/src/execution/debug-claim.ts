import { CasConflictError } from "../errors/index";
import type { Store } from "../store/port";
import { stepLineage, stepNameOf } from "../workflow/index";
import { describeValue, matchesVariableType, typeNoun } from "../workflow/value-types";
import {
  DEBUG_EDIT_MAX_BYTES,
  type DebugClaim,
  type DebugCommandBody,
  type DebugCommandName,
  type PauseRecord,
} from "./debug";
import { parseConversation } from "./conversation-input";
import { newId } from "./ids";
import { parseDefinition } from "./parsed-definitions";
import { TERMINAL_STATUSES, type ExecutionSnapshot } from "./snapshot";

export interface DebugCommandRequest {
  command: DebugCommandName;
  body: DebugCommandBody;
  /** Who sends it (a user id): recorded with the edits and in `debug_resumed`. */
  by: string;
}

export type ClaimResult =
  | { ok: true; claim: DebugClaim }
  /**
   * `not_found`: no such execution; `not_debug`: not a debug run; `no_pause`: it is not paused
   * (or has ended); `stale`: `pauseId` names another pause than the current one; `conflict`:
   * another command won this pause; `invalid`: the command does not apply to this pause.
   */
  | { ok: false; reason: "not_found" | "not_debug" | "no_pause" | "stale" | "conflict" | "invalid"; message: string };

export interface ClaimOptions {
  /** How long to wait for a `set` being carried out (it leaves the pause as it is) before calling it a conflict. */
  waitMs?: number;
  now?: () => number;
}

/** Edits a debug run keeps at most: each is in its record. */
const DEBUG_MAX_EDITS = 50;

/**
 * A claim this old, on an execution nobody holds, was never carried out (its sender died before publishing it): it no
 * longer blocks the pause.
 */
const ABANDONED_CLAIM_MS = 60_000;
const SET_POLL_MS = 50;

/**
 * Claims the current pause of a debug run for one command, by compare-and-set on its snapshot: of
 * commands racing for a pause exactly one wins, and the caller publishes it (`debugCommandOf`). The
 * answer comes from the store, so an API can say at once 202 or 409. A `set` leaves the pause in
 * place: a claim made while one is carried out waits for it (up to `waitMs`) instead of being refused
 * (docs/debugger.md#exactly-one-command-per-pause).
 */
export async function claimPause(
  store: Store,
  executionId: string,
  pauseId: string | undefined,
  req: DebugCommandRequest,
  opts: ClaimOptions = {},
): Promise<ClaimResult> {
  const now = opts.now ?? Date.now;
  const waitUntil = now() + (opts.waitMs ?? 2_000);
  for (;;) {
    const v = await store.executions.get(executionId);
    if (!v) return { ok: false, reason: "not_found", message: `execution ${executionId} not found` };
    const snap = v.value;
    const debug = snap.debug;
    if (!debug) return { ok: false, reason: "not_debug", message: `execution ${executionId} is not a debug run` };
    const pause = TERMINAL_STATUSES.has(snap.status) ? null : debug.pause;
    if (!pause) return { ok: false, reason: "no_pause", message: `execution ${executionId} is not paused` };
    if (pauseId !== undefined && pauseId !== pause.id) {
      return { ok: false, reason: "stale", message: `pause ${pauseId} is not the current one (${pause.id})` };
    }
    const held = standingClaim(snap, now());
    if (held) {
      if (held.command === "set" && held.pauseId === pause.id && now() < waitUntil) {
        await new Promise((resolve) => setTimeout(resolve, SET_POLL_MS));
        continue;
      }
      return {
        ok: false,
        reason: "conflict",
        message: `another command (${held.command} by ${held.by}) won pause ${pause.id}`,
      };
    }
    const problem =
      req.command === "set" && debug.edits.length >= DEBUG_MAX_EDITS
        ? `a debug run keeps at most ${DEBUG_MAX_EDITS} edits`
        : (debugCommandProblem(pause, req.command, req.body) ??
          inputProblem(snap, pause, req.body) ??
          varsProblem(snap, req.body));
    if (problem) return { ok: false, reason: "invalid", message: problem };
    const claim: DebugClaim = {
      id: newId(),
      pauseId: pause.id,
      command: req.command,
      body: { ...req.body, pauseId: pause.id },
      by: req.by,
      at: now(),
    };
    debug.claimed = claim;
    try {
      await store.executions.update(snap, v.version);
      return { ok: true, claim };
    } catch (err) {
      if (!(err instanceof CasConflictError)) throw err;
    }
  }
}

/**
 * The claim on the run's pause that a command won and that still stands: its command is on its way to the executor,
 * which carries it out (or it is given up, releaseClaim); null when there is none, or it was abandoned.
 */
export function standingClaim(snap: ExecutionSnapshot, now: number): DebugClaim | null {
  const held = snap.debug?.claimed;
  // Aged from the run's park too: a claim made while another branch held the run for over a minute was not abandoned.
  const since = held ? Math.max(held.at, held.releasedAt ?? 0) : 0;
  return held && !(now - since > ABANDONED_CLAIM_MS && snap.holder === null) ? held : null;
}

/**
 * Gives a claim up again, when its message could not be published: the pause is free for
 * another command. Says whether the claim was still there to remove.
 */
export async function releaseClaim(store: Store, executionId: string, claimId: string): Promise<boolean> {
  for (;;) {
    const v = await store.executions.get(executionId);
    if (!v || v.value.debug?.claimed?.id !== claimId) return false;
    v.value.debug.claimed = null;
    try {
      await store.executions.update(v.value, v.version);
      return true;
    } catch (err) {
      if (!(err instanceof CasConflictError)) throw err;
    }
  }
}

/**
 * What is wrong with a `set` input for the paused step, or null: an llm or agent step's is the conversation it would
 * send, and one of another shape would only fail the step once resumed.
 */
function inputProblem(snap: ExecutionSnapshot, pause: PauseRecord, body: DebugCommandBody): string | null {
  if (body.input === undefined) return null;
  const workflow = parseDefinition(snap.definition, snap.ownerId);
  const step = workflow.success ? stepLineage(workflow.data.steps, stepNameOf(pause.stepPath))?.step : undefined;
  if (step?.type !== "llm" && step?.type !== "agent") return null;
  const parsed = parseConversation(body.input);
  return parsed.ok ? null : `the input of ${step.type} step \`${step.name}\` ${parsed.why}`;
}

/**
 * What is wrong with `set vars`, or null: a declared variable keeps its type. Another type would reach the steps as no
 * input could, and a plain rerun, which takes the run's variables as its inputs, would be refused for it.
 */
function varsProblem(snap: ExecutionSnapshot, body: DebugCommandBody): string | null {
  if (body.vars === undefined) return null;
  const workflow = parseDefinition(snap.definition, snap.ownerId);
  const declared = workflow.success ? (workflow.data.variables ?? {}) : {};
  for (const [name, value] of Object.entries(body.vars)) {
    const def = Object.hasOwn(declared, name) ? declared[name] : undefined;
    if (def && !matchesVariableType(def.type, value))
      return `set vars: \`${name}\` must be ${typeNoun(def.type)}, not ${describeValue(value)}`;
  }
  return null;
}

/** What is wrong with `command` at `pause`, or null: each command applies at some phases only. */
function debugCommandProblem(pause: PauseRecord, command: DebugCommandName, body: DebugCommandBody): string | null {
  const at = `the pause is ${pause.phase} \`${pause.stepPath}\``;
  switch (command) {
    case "skip":
      if (!["before", "error", "retry", "tool_call"].includes(pause.phase))
        return `skip applies before a step, a retry or a tool call, or at a failure; ${at}`;
      break;
    case "retry":
      if (pause.phase !== "error") return `retry applies at a failure (on_error); ${at}`;
      break;
    case "set": {
      const fields = (["vars", "output", "arguments", "input"] as const).filter((f) => body[f] !== undefined);
      if (fields.length === 0) return "set needs at least one of vars, output, arguments, input";
      if (body.output !== undefined && pause.phase !== "after")
        return `set output applies after a step (after_step, watch); ${at}`;
      if (body.input !== undefined && pause.phase !== "before") return `set input applies before a step; ${at}`;
      if (body.arguments !== undefined && pause.phase !== "tool_call")
        return `set arguments applies before a tool call; ${at}`;
      break;
    }
    default:
      break;
  }
  for (const field of ["vars", "output", "arguments", "input"] as const) {
    const bytes = body[field] === undefined ? 0 : Buffer.byteLength(JSON.stringify(body[field]) ?? "");
    if (bytes > DEBUG_EDIT_MAX_BYTES)
      return `${field} is ${bytes} bytes of JSON, over the ${DEBUG_EDIT_MAX_BYTES} a debugger edit may carry`;
  }
  return null;
}
