import { describe, expect, it } from "vitest";
import type { DebugCommandName, PauseRecord } from "@wf/shared/execution";
import { stepNameOf } from "@wf/shared/workflow";
import { codeFailed, codeOk } from "../fake-run";
import { pick, seeded, type Random } from "@wf/shared/testing";
import { AGENTS, generateCase, TOKENS_PER_CALL, type CaseStep, type DebugCase } from "./testing/generate-case";
import { modelRun, nextInTurn, pointKey, stepDepths } from "./testing/run-model";
import { Session } from "./testing/session";

/**
 * Generated debug runs against a model of the run (testing/run-model.ts): nested foreach and
 * parallel steps with concurrency, the nine breakpoint types, random Continue, Step, Step into,
 * Skip, Retry and Set at each pause, each command handled twice and some runs woken twice. Code
 * steps take each item its own time, so branches come to their points behind a pause out of the
 * order the run comes back to them: those pause in the order they came.
 * `DEBUG_SEED` replays the cases from that seed, `DEBUG_CASES` says how many.
 */
// Cases whose branches wait their turn out of order take longer: 250 take about what 300 took before they came.
const CASES = Number(process.env.DEBUG_CASES ?? 250);
const FIRST_SEED = Number(process.env.DEBUG_SEED ?? Math.floor(Math.random() * 2 ** 31));

/** More pauses than any generated case has points: a run that gets here pauses again where it paused. */
const PAUSES_BOUND = 400;

/**
 * The phases a branch goes past, not evaluating breakpoints, while another branch's pause holds the run
 * (docs/debugger.md, Durability).
 */
const GONE_PAST_WHILE_PAUSED: ReadonlySet<string> = new Set(["error"]);

interface Segment {
  /** One wake of the run: what it wrote, and the pause it parked at (null: it ended). */
  events: { type: string; step?: string; data: Record<string, unknown> }[];
  parkedAt: string | null;
}

/** A command that applies at the pause, at random; Step and Step into say the deepest level their pause may come at. */
function command(random: Random, pause: PauseRecord): DebugCommandName {
  const options: DebugCommandName[] = ["continue", "continue", "continue", "step", "step_into"];
  if (["before", "error", "retry", "tool_call"].includes(pause.phase)) options.push("skip", "skip");
  if (pause.phase === "error") options.push("retry", "retry");
  return pick(random, options);
}

function scriptEffects(s: Session, c: DebugCase): void {
  const codes = new Map<string, Extract<CaseStep, { kind: "code" }>>();
  const visit = (steps: DebugCase["steps"]) =>
    steps.forEach((st) => {
      if (st.kind === "code") codes.set(st.name, st);
      if (st.kind === "foreach") visit(st.steps);
      if (st.kind === "parallel") st.branches.forEach(visit);
    });
  visit(c.steps);
  // Items are unique in a generated workflow: a step's name and its item name its path.
  const calls = new Map<string, number>();
  s.effects.code = async (req) => {
    const key = `${req.code} ${JSON.stringify(req.item ?? null)}`;
    const n = (calls.get(key) ?? 0) + 1;
    calls.set(key, n);
    const code = codes.get(req.code!)!;
    for (let tick = code.ticks[String(req.item ?? null)]!; tick > 0; tick--) await Promise.resolve();
    return n <= code.fails ? codeFailed(`attempt ${n} failed`) : codeOk(n);
  };
  const usage = { promptTokens: TOKENS_PER_CALL, completionTokens: 0, totalTokens: TOKENS_PER_CALL };
  s.effects.tools = [{ name: "lookup", description: "", inputSchema: {} }];
  s.effects.llmScript = (req) => {
    const asks = req.tools !== undefined && req.messages.at(-1)?.role === "user";
    const toolCalls = asks ? [{ id: "c1", name: "crm__lookup", arguments: '{"id":1}' }] : [];
    return { text: asks ? "" : "done", toolCalls, usage, stopReason: "stop", provider: "fake", costUsd: 0 };
  };
}

/** Drives one generated case to its end, checking each pause as it comes and the whole against the model. */
async function checkCase(seed: number): Promise<void> {
  const random = seeded(seed);
  const c = generateCase(random);
  const s = new Session(c.definition.steps as unknown[], c.breakpoints, { agents: AGENTS });
  s.redeliver = true;
  scriptEffects(s, c);
  const commands = new Map<string, DebugCommandName>();
  /** Each pause, how deep it may come, and the points listed as waiting their turn behind it (keys, as listed). */
  const pauses: { pause: PauseRecord; level: number | null; listed: string[] }[] = [];
  const segments: Segment[] = [];
  const depths = stepDepths(c.steps);
  const depth = (path: string) => depths.get(stepNameOf(path))!;
  /** How deep a `step` pause may come, after the last command (null: none may). */
  let level: number | null = null;

  for (let outcome = await s.run(); ;) {
    const announced = s.t.committer.events.filter((e) => e.type === "debug_paused").map((e) => e.data as PauseRecord);
    segments.push({ events: s.t.committer.events, parkedAt: outcome === "parked" ? pointKey(s.pause) : null });
    if (outcome === "terminal") {
      expect(announced, "no pause after the run ends").toEqual([]);
      break;
    }
    // One pause per wake, the one the run parks at: none written over by another branch's.
    expect(announced.map((p) => p.id)).toEqual([s.pause.id]);
    const pause = s.pause;
    const listed: string[] = [];
    pauses.push({ pause, level, listed });
    expect(pauses.length, `pauses: ${pauses.map((p) => pointKey(p.pause)).join(", ")}`).toBeLessThan(PAUSES_BOUND);

    if (random() < 0.3) {
      // Woken again while paused (a redelivered resume): it parks at the same pause, writing none.
      const again = s.t.resumed();
      expect(await again.run.run()).toBe("parked");
      expect(again.snap.debug!.pause!.id).toBe(pause.id);
      expect(again.committer.events.filter((e) => e.type === "debug_paused")).toEqual([]);
      segments.push({ events: again.committer.events, parkedAt: pointKey(pause) });
      s.t = again;
    }
    if (random() < 0.2) expect(await s.send("set", { vars: { touched: pauses.length } })).toMatchObject({ ok: true });
    listed.push(...s.snap.debug!.waiting.map(pointKey));
    expect(listed, "the paused point waits no turn").not.toContain(pointKey(pause));
    const next = command(random, pause);
    commands.set(pointKey(pause), next);
    level =
      next === "step" || next === "step_into"
        ? depth(pause.stepPath) + (next === "step_into" || pause.phase === "item" ? 1 : 0)
        : null;
    expect(await s.send(next)).toMatchObject({ ok: true });
    outcome = await s.run();
  }

  const { expected, steps, llmCalls } = modelRun(c, commands);
  const keys = pauses.map((p) => pointKey(p.pause));
  expect(new Set(keys).size, `a point paused twice: ${keys.join(", ")}`).toBe(keys.length);
  for (const { pause, level: allowed } of pauses) {
    const want = expected.get(pointKey(pause));
    if (want) {
      expect(pause.breakpointId, `the breakpoint that pauses at ${pointKey(pause)}`).toBe(want.breakpointId);
      continue;
    }
    // No breakpoint hits here: the boundary a Step or Step into asked for.
    expect(pause.breakpointId, `${pointKey(pause)} is no breakpoint's point`).toBe("step");
    expect(pause.phase).toBe("before");
    expect(allowed, `a step pause at ${pointKey(pause)} that no Step asked for`).not.toBeNull();
    expect(depth(pause.stepPath)).toBeLessThanOrEqual(allowed!);
  }
  // Points waiting behind a pause pause in the order their branches came to them, before any other.
  pauses.forEach(({ listed }, i) => {
    const next = nextInTurn(listed, expected);
    if (next) expect(keys[i + 1], `after ${keys[i]}, waiting: ${listed.join(", ")}`).toBe(next);
  });
  // Listed in that order: a step's completion is its branch coming to the point after it.
  const completed = segments.flatMap((seg) => seg.events.filter((e) => e.type === "step_completed").map((e) => e.step));
  for (const { listed } of pauses) {
    const after = listed.filter((key) => key.startsWith("after "));
    const came = after.map((key) => completed.indexOf(key.split(" ")[1]));
    expect(came, `waiting: ${after.join(", ")}`).not.toContain(-1);
    expect(came, `waiting: ${after.join(", ")}`).toEqual([...came].sort((a, b) => a - b));
  }
  const paused = new Set(keys);
  for (const [key, { point }] of expected) {
    if (paused.has(key)) continue;
    // Missed only where docs/debugger.md lets it be: gone past while another pause held the run.
    expect(GONE_PAST_WHILE_PAUSED.has(point.phase), `no pause at ${key}`).toBe(true);
    const during = segments.find((seg) => seg.events.some((e) => passes(e, point)));
    expect(during?.parkedAt, `no pause at ${key}, though no other pause held the run`).toBeTruthy();
    expect(during!.parkedAt).not.toBe(key);
  }
  expect(s.snap.status).toBe("COMPLETED");
  expect(s.effects.llmCalls.length, "LLM calls: an attempt resumed from a pause goes on from there").toBe(llmCalls);
  expect(Object.fromEntries(Object.entries(s.snap.steps).map(([path, st]) => [path, st.status]))).toEqual(
    Object.fromEntries(steps),
  );
}

/** Whether the event shows the run going past the point (for the phases that go past while paused elsewhere). */
function passes(e: Segment["events"][number], point: { phase: string; path: string; occurrence: number }): boolean {
  if (e.step !== point.path) return false;
  switch (point.phase) {
    case "after":
      return e.type === "step_completed";
    case "error":
      return e.type === "step_retrying" && e.data.attempt === point.occurrence;
    case "llm_call":
      return e.type === "step_usage" && e.data.call === point.occurrence;
    default:
      return e.type === "step_tool_call";
  }
}

describe("the debugger over generated workflows", () => {
  const name = `pauses once at each point a breakpoint hits, those waiting in the order they came (${CASES} cases)`;
  it(name, { timeout: Math.max(60_000, CASES * 100) }, async () => {
    for (let i = 0; i < CASES; i++) {
      const seed = FIRST_SEED + i;
      try {
        await checkCase(seed);
      } catch (err) {
        const replay = `DEBUG_SEED=${seed} DEBUG_CASES=1 npx vitest run services/executor/src/run/debug/debug.property.test.ts`;
        const { definition, breakpoints } = generateCase(seeded(seed));
        throw new Error(
          `case of seed ${seed} (replay: ${replay})\n${JSON.stringify({ definition, breakpoints })}\n${(err as Error).message}`,
          { cause: err },
        );
      }
    }
  });
});
