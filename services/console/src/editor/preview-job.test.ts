import { describe, expect, it } from "vitest";
import type { KnownItems } from "./preview-context";
import { FirstItems, KEPT_ITEMS, PREVIEW_LINES, previewOf, SECRETS_NOT_PREVIEWED } from "./preview-job";

const context = {
  steps: {
    fetch: {
      output: { rows: Array.from({ length: 40 }, (_, i) => ({ id: i, title: `row ${i}` })), note: "x".repeat(300) },
      status: "COMPLETED",
      duration: 12,
      error: null,
    },
  },
  vars: { who: "Ada" },
  execution: { id: "e1", workflowName: "greet" },
};
const preview = (expression: string, condition = false) =>
  previewOf({ expression, condition, field: null, context, itemSteps: [], items: [] }, new FirstItems());
/** The preview of the expression at `expression` in the field `field`, inside the foreach steps of `items` if given. */
const inField = (field: string, expression: string, ...items: KnownItems[]) =>
  previewOf({ expression, condition: false, field, context, itemSteps: [], items }, new FirstItems());

describe("previewOf, an expression's result on the known data", () => {
  it("gives the value as the service evaluates it", async () => {
    expect(await preview("steps.fetch.output.rows[1].title")).toEqual({ kind: "value", text: '"row 1"' });
    expect(await preview("'Hello ' & vars.who & ' from ' & execution.workflowName")).toEqual({
      kind: "value",
      text: '"Hello Ada from greet"',
    });
    expect(await preview("$count(steps.fetch.output.rows[id > 30])")).toEqual({ kind: "value", text: "9" });
    expect(await preview("steps.fetch.output.missing")).toEqual({ kind: "value", text: "nothing" });
  });

  it("cuts a long value to a few lines of at most 100 characters, saying what was left out", async () => {
    const rows = await preview("steps.fetch.output.rows");
    const lines = rows.text.split("\n");
    expect(lines).toHaveLength(PREVIEW_LINES + 1);
    expect(lines.at(-1)).toMatch(/^… \d+ more lines$/);
    const note = await preview("steps.fetch.output.note");
    expect(note.text).toHaveLength(100);
    expect(note.text.endsWith("…")).toBe(true);
  });

  it("says whether a condition lets its step run", async () => {
    expect(await preview("vars.who = 'Ada'", true)).toEqual({ kind: "value", text: "true\n→ the step runs" });
    expect(await preview("steps.fetch.output.missing", true)).toEqual({
      kind: "value",
      text: "nothing\n→ the step is skipped",
    });
  });

  it("gives the error a run would fail with", async () => {
    expect(await preview("steps.fetch.output.rows[")).toMatchObject({
      kind: "error",
      text: expect.stringMatching(/character/),
    });
    expect(await preview("$error('stop here')")).toEqual({ kind: "error", text: "stop here (at character 7)" });
  });

  it("never previews secrets, even where the text only reads the whole context", async () => {
    expect(await preview("secrets.api_key")).toEqual(SECRETS_NOT_PREVIEWED);
    expect(await preview("$length(secrets.api_key)")).toEqual(SECRETS_NOT_PREVIEWED);
    expect(await preview("$$.secrets")).toEqual(SECRETS_NOT_PREVIEWED);
    expect(SECRETS_NOT_PREVIEWED.text).not.toMatch(/\d/);
  });

  it("says which name has no known value instead of evaluating without it", async () => {
    expect(await preview("steps.later.output.id & steps.fetch.output.note")).toEqual({
      kind: "unknown",
      text: "steps.later has no known output",
    });
    expect(await preview("vars.limit * 2")).toEqual({ kind: "unknown", text: "vars.limit has no known value" });
    expect(await preview("item.id")).toEqual({ kind: "unknown", text: "item.id has no known value" });
    expect(
      await previewOf(
        {
          expression: "vars.who",
          condition: false,
          field: null,
          context: { steps: {} },
          itemSteps: [],
          items: [],
        },
        new FirstItems(),
      ),
    ).toEqual({
      kind: "unknown",
      text: "vars.who has no known value",
    });
  });
});

describe("previewOf, the whole field the expression is a template of", () => {
  it("renders the field as the service does, text and every template in it", async () => {
    expect(await inField("Hi {{ vars.who }}, you owe {{ $count(steps.fetch.output.rows) }}", "vars.who")).toEqual({
      kind: "value",
      text: '"Ada"',
      field: { kind: "value", text: '"Hi Ada, you owe 40"' },
    });
    // Nothing renders as no text, an object as its JSON.
    expect(
      (await inField("[{{ steps.fetch.output.missing }}] {{ steps.fetch.output.rows[0] }}", "vars.who")).field,
    ).toEqual({
      kind: "value",
      text: '"[] {\\"id\\":0,\\"title\\":\\"row 0\\"}"',
    });
  });

  it("says why the field is not rendered: an error, an unknown name or a secret in any of its templates", async () => {
    expect(await inField("Hi {{ vars.who }} {{ $error('no') }}", "vars.who")).toMatchObject({
      kind: "value",
      field: { kind: "error", text: "no (at character 7)" },
    });
    expect((await inField("Hi {{ vars.who }} {{ steps.later.output }}", "vars.who")).field).toEqual({
      kind: "unknown",
      text: "steps.later has no known output",
    });
    expect((await inField("Hi {{ vars.who }} {{ secrets.api_key }}", "vars.who")).field).toEqual(SECRETS_NOT_PREVIEWED);
    expect((await inField("Hi {{ vars.who }} {{ $$.secrets }}", "vars.who")).field).toEqual(SECRETS_NOT_PREVIEWED);

    // What the expression's own preview says already is said once.
    expect(await inField("Hi {{ secrets.api_key }}", "secrets.api_key")).toEqual(SECRETS_NOT_PREVIEWED);
    expect(await inField("Hi {{ $error('no') }}", "$error('no')")).toEqual({
      kind: "error",
      text: "no (at character 7)",
    });
  });
});

describe("previewOf, `item` inside a foreach", () => {
  const run = { steps: { list: { output: [{ name: "Bob" }, { name: "Cy" }], status: "COMPLETED" } }, vars: {} };

  it("is the first item of the latest run: its list, or its template rendered on what the run rendered it on", async () => {
    const rendered = { run: "r1", path: "each", items: "{{ steps.list.output }}", context: run, steps: {} };
    expect(await inField("Dear {{ item.name }} from {{ vars.who }}", "item.name", rendered)).toEqual({
      kind: "value",
      text: '"Bob"',
      field: { kind: "value", text: '"Dear Bob from Ada"' },
      fromItem: "item: item 0 of the latest run",
      // Whole, for the step panel's tree of it.
      item: { value: { name: "Bob" } },
    });
    expect(
      await inField("{{ item }} of 2", "item", { run: "r1", path: "each", items: [7, 8], context: {}, steps: {} }),
    ).toMatchObject({
      text: "7",
      item: { value: 7 },
      field: { text: '"7 of 2"' },
      fromItem: "item: item 0 of the latest run",
    });
    // Said only where the expression or its field reads it.
    const unread = await inField("{{ vars.who }}!", "vars.who", rendered);
    expect(unread).not.toHaveProperty("fromItem");
    expect(unread).not.toHaveProperty("item");
  });

  it("stays unknown when the run's items are not known here: secrets, a name not known, none at all", async () => {
    const unknown = { kind: "unknown", text: "item.name has no known value" };
    for (const items of ["{{ secrets.rows }}", "{{ steps.nothing.output }}", "{{ [] }}", "{{ $error('x') }}", 3])
      expect(
        await inField("{{ item.name }}!", "item.name", { run: "r1", path: "each", items, context: run, steps: {} }),
      ).toMatchObject(unknown);
    expect(await inField("{{ item.name }}!", "item.name")).toMatchObject(unknown);
  });

  it("in a foreach nested in another, is the first item of the items rendered on the outer one's first", async () => {
    const outer = { run: "r1", path: "outer", items: [{ rows: ["a", "b"] }, { rows: ["c"] }], context: {}, steps: {} };
    const inner = { run: "r1", path: "outer[0].inner", items: "{{ item.rows }}", context: run, steps: {} };
    expect(await inField("{{ item }}!", "item", outer, inner)).toMatchObject({
      text: '"a"',
      fromItem: "item: item 0 of the latest run",
    });
    const unknownOuter = { ...outer, items: "{{ secrets.rows }}" };
    expect(await inField("{{ item }}!", "item", unknownOuter, inner)).toMatchObject({ kind: "unknown" });
    // An inner foreach whose items do not read `item` needs no outer one's.
    const own = { ...inner, items: "{{ steps.list.output }}" };
    expect(await inField("{{ item.name }}!", "item.name", unknownOuter, own)).toMatchObject({ text: '"Bob"' });
  });
});

describe("previewOf, `item` evaluated once per run, foreach and items", () => {
  const run = { steps: { list: { output: [{ name: "Bob" }, { name: "Cy" }], status: "COMPLETED" } }, vars: {} };
  const drawn = { run: "r1", path: "each", items: "{{ [$random(), $random()] }}", context: run, steps: {} };
  const ask = (firstItems: FirstItems, ...items: KnownItems[]) =>
    previewOf({ expression: "item", condition: false, field: null, context, itemSteps: [], items }, firstItems);

  it("gives every preview of the same run's foreach the same item 0, even of items that differ at each evaluation", async () => {
    const firstItems = new FirstItems();
    const first = await ask(firstItems, drawn);
    expect(first.item).toEqual({ value: expect.any(Number), mayDiffer: expect.stringMatching(/\$random\(\)/) });
    for (let i = 0; i < 5; i++) expect((await ask(firstItems, { ...drawn })).item).toEqual(first.item);
    // An inner foreach reads the outer one's kept item 0.
    const inner = { ...drawn, path: "each[0].inner", items: "{{ [item * 10] }}" };
    expect((await ask(firstItems, drawn, inner)).item?.value).toBe((first.item!.value as number) * 10);
    // Another run, or other items, are evaluated anew.
    expect((await ask(firstItems, { ...drawn, run: "r2" })).item).not.toEqual(first.item);
    expect((await ask(firstItems, { ...drawn, run: "r2", items: "{{ [7] }}" })).item).toEqual({ value: 7 });
  });

  it("keeps the item 0s used last, at most KEPT_ITEMS of them", async () => {
    const firstItems = new FirstItems();
    const first = await ask(firstItems, drawn);
    // Edits of the items' text, each evaluated once; the first is asked again half way, so it stays.
    const edit = (i: number) => ({ ...drawn, items: `{{ [$random(), ${i}] }}` });
    const oldest = (await ask(firstItems, edit(0))).item;
    for (let i = 1; i < KEPT_ITEMS; i++) {
      await ask(firstItems, edit(i));
      if (i === KEPT_ITEMS / 2) expect((await ask(firstItems, drawn)).item).toEqual(first.item);
    }
    expect((await ask(firstItems, drawn)).item).toEqual(first.item);
    // The one used least recently went: evaluated anew, it is another draw.
    expect((await ask(firstItems, edit(0))).item).not.toEqual(oldest);
  });

  it("says that an item 0 evaluated from items calling $now(), $random() may not be the run's", async () => {
    const shown = await inField("{{ item }} at {{ vars.who }}", "item", drawn);
    expect(shown.fromItem).toBe(
      "item: item 0 of the latest run; item is evaluated again here from items calling $random(): it may not be the run's",
    );
    // The step panel's `item` says it too.
    expect(shown.item).toEqual({
      value: expect.any(Number),
      mayDiffer: "item is evaluated again here from items calling $random(): it may not be the run's",
    });
    const stamped = { ...drawn, items: "{{ [$millis()] }}" };
    const inner = { ...drawn, path: "each[0].inner", items: "{{ [item] }}" };
    expect((await inField("{{ item }}!", "item", stamped, inner)).fromItem).toMatch(/calling \$millis\(\): it may not/);
    // Only a call counts, not a string that names one.
    const quoted = { ...drawn, items: "{{ steps.list.output[name != '$now()'] }}" };
    expect((await inField("{{ item.name }}!", "item.name", quoted)).fromItem).toBe("item: item 0 of the latest run");
    const listed = { ...drawn, items: "{{ steps.list.output }}" };
    const plain = await inField("{{ item.name }}!", "item.name", listed);
    expect(plain.fromItem).toBe("item: item 0 of the latest run");
    expect(plain.item).toEqual({ value: { name: "Bob" } });
  });
});

describe("previewOf, a step run in the same foreach item", () => {
  const inItem = {
    ...context,
    steps: { ...context.steps, shape: { output: { total: 5 }, status: "COMPLETED", duration: 2, error: null } },
  };
  const ask = (expression: string, field: string | null = null) =>
    previewOf(
      { expression, condition: false, field, context: inItem, itemSteps: ["shape"], items: [] },
      new FirstItems(),
    );

  it("is its run in item 0 of the latest run, and says so where the expression or its field reads it", async () => {
    expect(await ask("steps.shape.output.total * 2")).toEqual({
      kind: "value",
      text: "10",
      fromItem: "steps.shape: item 0 of the latest run",
    });
    expect(await ask("vars.who", "{{ vars.who }} owes {{ steps.shape.output.total }}")).toEqual({
      kind: "value",
      text: '"Ada"',
      field: { kind: "value", text: '"Ada owes 5"' },
      fromItem: "steps.shape: item 0 of the latest run",
    });
    expect(await ask("$count($keys(steps))")).toMatchObject({ fromItem: "steps.shape: item 0 of the latest run" });
    expect(await ask("steps.fetch.output.note")).not.toHaveProperty("fromItem");
  });

  it("is said with the item when both are read", async () => {
    const answer = await previewOf(
      {
        expression: "item & steps.shape.output.total",
        condition: false,
        field: null,
        context: inItem,
        itemSteps: ["shape"],
        items: [{ run: "r1", path: "each", items: ["x"], context: {}, steps: {} }],
      },
      new FirstItems(),
    );
    expect(answer).toEqual({
      kind: "value",
      text: '"x5"',
      fromItem: "item, steps.shape: item 0 of the latest run",
      item: { value: "x" },
    });
  });
});
