import { describe, expect, it } from "vitest";
import {
  evaluateCondition,
  evaluateExpression,
  EXPRESSION_LIMITS,
  ExpressionError,
  renderTemplate,
  type ExpressionContext,
} from "./index";
import { keepJsonText } from "../text/json-texts";

/** The execution's owner: the pool serves owners in turn (eval-pool.ts). */
const OWNER = "u1";

const ctx = (over: Partial<ExpressionContext> = {}): ExpressionContext => ({
  vars: { ticket_id: "T-1", dry_run: false, priority: 3 },
  steps: { fetch: { output: { rows: [{ id: 1 }, { id: 2 }] }, status: "COMPLETED" } },
  execution: { id: "e1" },
  secrets: {},
  ...over,
});

describe("templates", () => {
  it("a whole template yields the typed value", async () => {
    expect(await renderTemplate("{{ steps.fetch.output.rows }}", ctx(), OWNER)).toEqual([{ id: 1 }, { id: 2 }]);
    expect(await renderTemplate("{{ 1 + 1 }}", ctx(), OWNER)).toBe(2);
    expect(await renderTemplate("{{ vars.dry_run }}", ctx(), OWNER)).toBe(false);
  });

  it("mixed text interpolates values as text", async () => {
    expect(
      await renderTemplate("Ticket {{ vars.ticket_id }} has {{ $count(steps.fetch.output.rows) }} rows", ctx(), OWNER),
    ).toBe("Ticket T-1 has 2 rows");
    expect(await renderTemplate("rows: {{ steps.fetch.output.rows }}", ctx(), OWNER)).toBe('rows: [{"id":1},{"id":2}]');
    expect(await renderTemplate("missing: [{{ vars.nope }}]", ctx(), OWNER)).toBe("missing: []");
  });

  it("interpolates a value kept with its JSON text as that text", async () => {
    const output = { rows: [{ id: 1 }, { id: 2 }] };
    // Spaced as no JSON.stringify writes it: the text shows which was used.
    keepJsonText(output, '{ "rows": [{ "id": 1 }, { "id": 2 }] }');
    const context = ctx({ steps: { fetch: { output, status: "COMPLETED" } } });
    expect(await renderTemplate("got {{ steps.fetch.output }}", context, OWNER)).toBe(
      'got { "rows": [{ "id": 1 }, { "id": 2 }] }',
    );
    expect(await renderTemplate("rows: {{ steps.fetch.output.rows }}", context, OWNER)).toBe(
      'rows: [{"id":1},{"id":2}]',
    );
  });

  it("renders nested objects and arrays, leaving plain values alone", async () => {
    expect(
      await renderTemplate(
        { a: ["{{ vars.priority * 2 }}", 5, null], b: { c: "x{{ vars.ticket_id }}" } },
        ctx(),
        OWNER,
      ),
    ).toEqual({
      a: [6, 5, null],
      b: { c: "xT-1" },
    });
  });

  it("a value's templates yield at most the expression results' bound in all, however often they repeat an output", async () => {
    const big = "x".repeat(256 * 1024);
    const bigObject = { text: big };
    const at = ctx({
      steps: { a: { output: big, status: "COMPLETED" }, o: { output: bigObject, status: "COMPLETED" } },
    });
    const times = Math.ceil(EXPRESSION_LIMITS.maxResultChars / big.length) + 1;
    const refused = /the templates of this value would yield over 16,777,216 characters/;
    // Interpolated into one text, and placed whole, again and again: both refused, as a failed expression.
    await expect(renderTemplate("{{ steps.a.output }}".repeat(times), at, OWNER)).rejects.toThrow(refused);
    await expect(renderTemplate(Array(times).fill("{{ steps.o.output }}"), at, OWNER)).rejects.toThrow(ExpressionError);
    // Under the bound, the same templates render.
    expect(await renderTemplate("{{ steps.a.output }}".repeat(4), at, OWNER)).toHaveLength(4 * big.length);
    expect(await renderTemplate(Array(4).fill("{{ steps.o.output }}"), at, OWNER)).toEqual(Array(4).fill(bigObject));
  });

  it("two templates in one string are text, not one expression", async () => {
    expect(await renderTemplate("{{ 1 }}{{ 2 }}", ctx(), OWNER)).toBe("12");
  });
});

describe("conditions and errors", () => {
  it("conditions are truthy tests of a bare expression", async () => {
    expect(await evaluateCondition("vars.dry_run = false", ctx(), OWNER)).toBe(true);
    expect(await evaluateCondition("vars.priority > 5", ctx(), OWNER)).toBe(false);
    expect(await evaluateCondition("vars.missing", ctx(), OWNER)).toBe(false);
  });

  it("a syntax error names the expression", async () => {
    const err = await evaluateExpression("vars.(", ctx(), OWNER).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ExpressionError);
    expect((err as ExpressionError).message).toContain("`vars.(`");
  });

  it("cannot reach prototypes or globals", async () => {
    expect(await evaluateExpression("vars.constructor", ctx(), OWNER)).toBeUndefined();
    expect(await evaluateExpression("vars.__proto__", ctx(), OWNER)).toBeUndefined();
    expect(await evaluateExpression("$process", ctx(), OWNER)).toBeUndefined();
  });

  it("keeps nothing an expression bound for the next evaluation of it, by another owner", async () => {
    // The hosts keep each expression compiled, by its text, for every owner: a binding must not outlive its evaluation.
    // Bound outside any block, the variable lands in the evaluation's own frame.
    const remember = '$exists($kept) ? "left: " & $kept : $kept := vars.ticket_id';
    expect(await evaluateExpression(remember, ctx(), OWNER)).toBe("T-1");
    const other = ctx({ vars: { ticket_id: "T-2" } });
    for (let i = 0; i < 8; i++) expect(await evaluateExpression(remember, other, `other-${i}`)).toBe("T-2");
  });

  it("a runaway expression is stopped", async () => {
    const err = await evaluateExpression("($f := function($n) { $f($n + 1) }; $f(0))", ctx(), OWNER).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ExpressionError);
  });
});

/** The error an evaluation rejected with (fails the test if it resolved). */
async function failure(expression: string, context = ctx()): Promise<ExpressionError> {
  const err = await evaluateExpression(expression, context, OWNER).then(
    (v) => {
      throw new Error(`\`${expression}\` gave ${JSON.stringify(v)}`);
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ExpressionError);
  return err as ExpressionError;
}

/**
 * Awaits `work` while a 5 ms interval timer runs on this (the main) thread, and reports the longest
 * gap between its ticks: what any other request of the process would have waited at worst.
 */
async function whileTimerRuns<T>(
  work: Promise<T>,
): Promise<{ settled: PromiseSettledResult<T>; worstGapMs: number; ticks: number }> {
  let last = performance.now();
  let worstGapMs = 0;
  let ticks = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    worstGapMs = Math.max(worstGapMs, now - last);
    last = now;
    ticks++;
  }, 5);
  const [settled] = await Promise.allSettled([work]);
  clearInterval(timer);
  return { settled: settled!, worstGapMs: Math.max(worstGapMs, performance.now() - last), ticks };
}

describe("regular expressions (linear-time engine)", () => {
  const text = ctx({ vars: { s: "Hello World", date: "2024-05-06", lines: "a\nb\nc", emoji: "😀ab café" } });

  it.each([
    [
      "$match(vars.s, /o/)",
      [
        { match: "o", index: 4, groups: [] },
        { match: "o", index: 7, groups: [] },
      ],
    ],
    ["$match(vars.s, /(l+)(o)/)", { match: "llo", index: 2, groups: ["ll", "o"] }],
    ["$match(vars.s, /o/, 1)", { match: "o", index: 4, groups: [] }],
    // A group that took no part in the match, as with JavaScript's RegExp (null once in JSON).
    ['$match("ac", /a(b)?c/)', { match: "ac", index: 0, groups: [null] }],
    ["$contains(vars.s, /world/i)", true],
    ["$contains(vars.s, /world/)", false],
    ["$match(vars.lines, /^b$/m)", { match: "b", index: 2, groups: [] }],
    ["$match(vars.lines, /^b$/)", undefined],
    ['$replace(vars.date, /(\\d+)-(\\d+)-(\\d+)/, "$3/$2/$1")', "06/05/2024"],
    ['$replace(vars.s, /o/, "0")', "Hell0 W0rld"],
    ['$replace(vars.s, /o/, "0", 1)', "Hell0 World"],
    ['$split("a1b22c", /\\d+/)', ["a", "b", "c"]],
    ['$split("a1b22c", /\\d+/, 2)', ["a", "b"]],
    // Indexes count UTF-16 code units, as everywhere else in JSONata.
    [
      "$match(vars.emoji, /a/)",
      [
        { match: "a", index: 2, groups: [] },
        { match: "a", index: 6, groups: [] },
      ],
    ],
    ['$replace(vars.emoji, /É/i, "e")', "😀ab cafe"],
    ["$contains(vars.emoji, /caf\\u00e9/)", true],
    ['$match("x", /(?<n>x)/)', { match: "x", index: 0, groups: ["x"] }],
    ["vars.s ~> /W.r/", { match: "Wor", start: 6, end: 9, groups: [] }],
  ])("%s", async (expression, expected) => {
    expect(await evaluateExpression(expression, text, OWNER)).toEqual(expected);
  });

  it.each([
    ['$match("aa", /(a)\\1/)', "backreference"],
    ['$match("ab", /a(?=b)/)', "lookahead"],
    ['$match("ab", /a(?!c)/)', "negative lookahead"],
    ['$match("ab", /(?<=a)b/)', "lookbehind"],
  ])("a pattern RE2 cannot run fails with an error naming the expression: %s (%s)", async (expression) => {
    const err = await failure(expression);
    expect(err.expression).toBe(expression);
    expect(err.message).toContain(`\`${expression}\` failed: regular expression /`);
    expect(err.message).toContain("no backreferences, no lookaround");
  });

  it("a zero-length match fails as JSONata says, with its position", async () => {
    expect((await failure('$split("abc", /x*/)')).message).toContain(
      "Regular expression matches zero length string (at character 7)",
    );
  });

  it("the ReDoS probe expression completes, and the main thread's timers keep firing meanwhile", async () => {
    // With a backtracking engine, 28 characters took 2.7 s on the main thread and 40 would take
    // days; in linear time both take milliseconds, and the result is "no match".
    for (const n of [28, 40, 100_000]) {
      const expression = `$match($pad('', ${n}, 'a') & '!', /(a+)+$/)`;
      const { settled, worstGapMs } = await whileTimerRuns(evaluateExpression(expression, ctx(), OWNER));
      expect(settled).toEqual({ status: "fulfilled", value: undefined });
      expect(worstGapMs).toBeLessThan(200);
    }
  });
});

describe("hard deadline", () => {
  it.each([
    ["a recursive lambda that never returns", "($f := function($n) { $f($n + 1) }; $f(0))"],
    // One call of a built-in, millions of matches: no JSONata evaluation step in between to check a clock.
    ["a single built-in call that burns CPU", "$replace($pad('', 5000000, 'a'), /a/, 'b')"],
  ])(
    "%s fails at the deadline, naming the expression, while the main thread keeps answering",
    async (_what, expression) => {
      const { settled, worstGapMs, ticks } = await whileTimerRuns(evaluateExpression(expression, ctx(), OWNER));
      expect(settled.status).toBe("rejected");
      const err = (settled as PromiseRejectedResult).reason as ExpressionError;
      expect(err).toBeInstanceOf(ExpressionError);
      expect(err.message).toBe(
        `expression \`${expression}\` failed: took longer than ${EXPRESSION_LIMITS.deadlineMs} ms`,
      );
      // A main thread held by the evaluation would show a gap of the whole deadline; half of it leaves a loaded machine
      // room to schedule.
      expect(worstGapMs).toBeLessThan(EXPRESSION_LIMITS.deadlineMs / 2);
      // The timer ran all along (at 5 ms, a 1 s deadline leaves room for ~200 ticks).
      expect(ticks).toBeGreaterThan(20);
    },
  );

  it("deep recursion fails with JSONata's own error, without waiting for the deadline", async () => {
    const down = (n: number) => `($down := function($n) { $n = 0 ? 0 : 1 + $down($n - 1) }; $down(${n}))`;
    expect(await evaluateExpression(down(20), ctx(), OWNER)).toBe(20);
    const err = await failure(down(1000));
    expect(err.message).toContain(`failed: Stack overflow. Check for non-terminating recursive function.`);
  });

  it("a runaway expression fails alone: another execution's expression in flight at the same time succeeds", async () => {
    // Its failure is taken at once: it may come before the others are done.
    const runaway = evaluateExpression("($loop := function($n) { $loop($n + 1) }; $loop(0))", ctx(), OWNER).catch(
      (e: unknown) => e,
    );
    // Defines a function too, as the runaway does: both need JSONata proper, not the name-path shortcut.
    const others = Array.from({ length: 6 }, (_, i) =>
      evaluateExpression(`($double := function($x) { $x * 2 }; $double(vars.priority + ${i}))`, ctx(), OWNER),
    );
    expect(await Promise.all(others)).toEqual([6, 8, 10, 12, 14, 16]);
    const err = await runaway;
    expect(err).toBeInstanceOf(ExpressionError);
    expect((err as ExpressionError).message).toContain("took longer than");
    // And the pool serves on after the runaway's worker was replaced.
    expect(await evaluateExpression("($double := function($x) { $x * 2 }; $double(21))", ctx(), OWNER)).toBe(42);
  });
});

describe("results", () => {
  it("are plain JSON: no JSONata sequence markers, no functions, plain prototypes", async () => {
    const list = await evaluateExpression("$map(steps.fetch.output.rows, function($r) { $r.id * 10 })", ctx(), OWNER);
    expect(list).toEqual([10, 20]);
    expect(Object.keys(list as object)).toEqual(["0", "1"]);
    expect(Object.getPrototypeOf(list)).toBe(Array.prototype);
    const obj = await evaluateExpression('{"ids": steps.fetch.output.rows.id, "f": function() { 1 }}', ctx(), OWNER);
    expect(obj).toStrictEqual({ ids: [1, 2] });
    expect(Object.getPrototypeOf(obj)).toBe(Object.prototype);
    expect(await evaluateExpression("$uppercase", ctx(), OWNER)).toBeUndefined();
  });

  it("a bare path of names reads the same value as JSONata does", async () => {
    const data = ctx({
      vars: { nested: { list: [1, [2, 3]], empty: [], none: null, text: "x" }, rows: [{ id: 1 }, { id: 2 }] },
    });
    for (const path of [
      "vars.nested.list",
      "vars.nested.empty",
      "vars.nested.none",
      "vars.nested.text.length",
      "vars.missing.x",
      "vars.rows.id",
      "steps.fetch.output",
    ]) {
      // The same path inside a block is not a bare path of names: JSONata evaluates it in a worker.
      expect(await evaluateExpression(path, data, OWNER), path).toEqual(
        await evaluateExpression(`(${path})`, data, OWNER),
      );
    }
  });
});
