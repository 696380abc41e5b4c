import {
  endedStatus,
  waitingPoints,
  type BreakpointInput,
  type ExecutionEvent,
  type PauseRecord,
  type WaitingPoints,
} from "@wf/shared/execution";
import { evaluateExpression } from "@wf/shared/expressions";
import { sendBreakpoints, sendDebugCommand } from "@wf/shared/client";
import type { Store } from "@wf/shared/store";
import type { ServiceConnection } from "../connection";
import { formatResult, readResult } from "../execution-result";
import { followEvents } from "../follow-events";
import { formatEvent } from "../format-event";
import { EXIT, UsageError } from "../usage";
import { formatBreakpoint } from "./break-spec";
import type { LineReader } from "./line-reader";
import { formatBehind, formatPause } from "./pause-view";
import { parsePromptLine, PROMPT_HELP } from "./prompt";

/** How long a paused run's record may lag its `debug_paused` event before the event's own record is used. */
const PAUSE_READ_MS = 2_000;

export interface DebugSession {
  conn: ServiceConnection;
  store: Store;
  executionId: string;
  /** Who types the commands: recorded with each edit and resume. */
  by: string;
  reader: LineReader;
}

/**
 * Follows a debug run's events from `since`, and at each pause reads commands at the prompt
 * until one resumes the run (or the user detaches: the run stays paused). With `pausedNow`, the
 * run is already paused (an attach): the prompt comes first. A child stepped into is debugged
 * in a session of its own inside this one. Returns 0 when the run ended COMPLETED, 1 when it
 * ended otherwise, DETACHED when the user detached.
 */
export async function runDebugSession(s: DebugSession, since: number, pausedNow: PauseRecord | null): Promise<number> {
  const ns = s.conn.config.WF_NAMESPACE;
  const ac = new AbortController();
  const events = followEvents(s.conn.js, ns, { executionId: s.executionId, since }, ac.signal);
  try {
    if (pausedNow && (await promptAt(s, pausedNow)) === "detach") return detached(s);
    let end: ExecutionEvent | undefined;
    for await (const e of events) {
      // No origin: `since` is where the replay starts, not when the run began; the end line shows the run's own time.
      for (const line of formatEvent(e)) console.log(line);
      if (endedStatus(e.type)) {
        end = e;
        break;
      }
      if (e.type === "step_child") {
        // Stepped into: the child is a debug run of its own, debugged here until it ends.
        const child = await steppedIntoChild(s, e);
        if (child && (await runDebugSession({ ...s, executionId: child }, since, null)) === DETACHED) return DETACHED;
        continue;
      }
      if (e.type !== "debug_paused") continue;
      const pause = await currentPause(s, e);
      if (pause && (await promptAt(s, pause)) === "detach") return detached(s);
    }
    if (!end) return EXIT.failed;
    const result = await readResult(s.conn, end);
    console.log(formatResult(result));
    return result.status === "COMPLETED" ? EXIT.ok : EXIT.failed;
  } finally {
    ac.abort();
  }
}

/** What a session returns when the user detached (also from a child session inside it). */
export const DETACHED = -1;

function detached(s: DebugSession): number {
  console.log(`detached: execution ${s.executionId} stays paused; wf debug --attach ${s.executionId} comes back to it`);
  return DETACHED;
}

/** The child a `step_child` event names, when it runs as a debug run (a step_into); else null. */
async function steppedIntoChild(s: DebugSession, e: ExecutionEvent): Promise<string | null> {
  const childId = typeof e.data.childExecutionId === "string" ? e.data.childExecutionId : null;
  if (!childId) return null;
  const until = Date.now() + PAUSE_READ_MS;
  while (Date.now() < until) {
    const child = (await s.store.executions.get(childId))?.value;
    if (child) return child.debug ? childId : null;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return null;
}

/** The pause the event announces, as the record holds it (the event's copy if the record has moved on). */
async function currentPause(s: DebugSession, e: ExecutionEvent): Promise<PauseRecord | null> {
  const announced = e.data as unknown as PauseRecord;
  const until = Date.now() + PAUSE_READ_MS;
  while (Date.now() < until) {
    const pause = (await s.store.executions.get(s.executionId))?.value.debug?.pause ?? null;
    if (pause?.id === announced.id) return pause;
    if (pause === null) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return announced.id ? announced : null;
}

/** Reads commands at a pause until one resumes the run ("resumed") or the user detaches. */
async function promptAt(s: DebugSession, pause: PauseRecord): Promise<"resumed" | "detach"> {
  const show = async (): Promise<void> => {
    for (const line of formatPause(pause, await behind(s, pause))) console.log(line);
  };
  await show();
  for (;;) {
    const line = await s.reader.next("(wf debug) ");
    if (line === null) return "detach";
    let action;
    try {
      action = parsePromptLine(line);
    } catch (err) {
      if (!(err instanceof UsageError)) throw err;
      console.log(err.message);
      continue;
    }
    switch (action.kind) {
      case "none":
        continue;
      case "help":
        console.log(PROMPT_HELP);
        continue;
      case "context":
        await show();
        continue;
      case "waiting": {
        const lines = formatBehind(await behind(s, pause));
        console.log(lines.length > 0 ? lines.join("\n") : "nothing waits behind this pause");
        continue;
      }
      case "detach":
        return "detach";
      case "print":
        console.log(await evaluateAt(pause, action.expression));
        continue;
      case "breakpoints":
        await breakpoints(s, action);
        continue;
      case "command": {
        const result = await sendDebugCommand(s.conn.js, s.store, s.conn.config.WF_NAMESPACE, s.executionId, pause.id, {
          command: action.command,
          body: action.body,
          by: s.by,
        });
        if (!result.ok) {
          console.log(`refused: ${result.message}`);
          // The run has moved on from this pause (or ended): its events say where it is now.
          if (result.reason === "no_pause" || result.reason === "stale") return "resumed";
          continue;
        }
        // A `set` leaves the run paused here: more edits, then a command that resumes it.
        if (action.command === "set") {
          console.log("set: recorded; the run stays paused");
          continue;
        }
        return "resumed";
      }
    }
  }
}

/**
 * What waits behind the pause as the record holds it now: other branches come to their points while it stands. Nothing
 * once the record has moved on from this pause (its list would be another pause's).
 */
async function behind(s: DebugSession, pause: PauseRecord): Promise<WaitingPoints> {
  const snap = (await s.store.executions.get(s.executionId))?.value;
  return snap?.debug?.pause?.id === pause.id ? waitingPoints(snap) : { waiting: [], held: [] };
}

async function evaluateAt(pause: PauseRecord, expression: string): Promise<string> {
  const c = pause.context;
  const steps = Object.fromEntries(Object.entries(c.outputs).map(([path, output]) => [path, { output }]));
  try {
    // In the CLI's own expression pool, whose one user is whoever runs it.
    const value = await evaluateExpression(
      expression,
      { vars: c.vars, steps, item: c.item, execution: {}, secrets: {} },
      "cli",
    );
    return JSON.stringify(value, null, 2) ?? "undefined";
  } catch (err) {
    return `error: ${(err as Error).message}`;
  }
}

async function breakpoints(
  s: DebugSession,
  action: { op: "list" } | { op: "add"; breakpoint: BreakpointInput } | { op: "remove"; id: string },
): Promise<void> {
  for (let tries = 1; ; tries++) {
    const debug = (await s.store.executions.getForWrite(s.executionId))?.value.debug;
    const current = debug?.breakpoints ?? [];
    if (action.op === "list") {
      console.log(current.length ? current.map(formatBreakpoint).join("\n") : "no breakpoints");
      return;
    }
    const next = action.op === "add" ? [...current, action.breakpoint] : current.filter((b) => b.id !== action.id);
    if (action.op === "remove" && next.length === current.length) {
      console.log(`no breakpoint ${action.id}`);
      return;
    }
    const ns = s.conn.config.WF_NAMESPACE;
    const change = { breakpoints: next, revision: debug?.breakpointsRevision ?? 0, by: s.by };
    const changed = await sendBreakpoints(s.conn.js, s.store, ns, s.executionId, change);
    if (changed.ok) {
      console.log(action.op === "add" ? "breakpoint added" : `breakpoint ${action.id} removed`);
      return;
    }
    // Changed meanwhile (the console, another session): the edit is made again on the list as it stands now.
    if (changed.reason !== "stale" || tries >= STALE_TRIES) {
      console.log(`breakpoints not changed: ${changed.message}`);
      return;
    }
  }
}

/** How many times an edit is made again on the breakpoints read anew after another change came first. */
const STALE_TRIES = 3;
