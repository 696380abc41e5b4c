import jsonata from "jsonata";
import { describe, expect, it } from "vitest";
import { outputExpression, outputFieldsAt, outputPathAt, outputTemplate } from "./output-paths";

const OUTPUT = {
  items: [
    { id: "a1", "my key": { "x-y": 3 } },
    { id: "b2", tags: ["red"] },
  ],
  count: 2,
  "a`b": true,
  $meta: "kept",
};

describe("outputExpression, the expression reading one field of a step's output", () => {
  it("writes identifiers after dots and indices in brackets", () => {
    expect(outputTemplate("fetch", ["items", 0, "id"])).toBe("{{ steps.fetch.output.items[0].id }}");
    expect(outputExpression("fetch", [])).toBe("steps.fetch.output");
  });

  it("quotes other names in backticks, and reads a name holding a backtick with $lookup", () => {
    expect(outputExpression("fetch-data", ["items", 0, "my key", "x-y"])).toBe(
      "steps.`fetch-data`.output.items[0].`my key`.`x-y`",
    );
    expect(outputExpression("fetch", ["a`b"])).toBe('$lookup(steps.fetch.output, "a`b")');
    expect(outputExpression("fetch", ["$meta"])).toBe("steps.fetch.output.`$meta`");
  });

  it("reads a foreach's current item for no step", async () => {
    expect(outputTemplate(null, ["rows", 0, "my key"])).toBe("{{ item.rows[0].`my key` }}");
    expect(outputExpression(null, [])).toBe("item");
    expect(await jsonata(outputExpression(null, ["items", 1, "tags", 0])).evaluate({ item: OUTPUT })).toBe("red");
  });

  it("gives expressions that JSONata reads as the field they name", async () => {
    const data = { steps: { fetch: { output: OUTPUT }, "fetch-data": { output: OUTPUT } } };
    const cases: Array<[string, Array<string | number>, unknown]> = [
      ["fetch", ["items", 0, "id"], "a1"],
      ["fetch-data", ["items", 0, "my key", "x-y"], 3],
      ["fetch", ["items", 1, "tags", 0], "red"],
      ["fetch", ["a`b"], true],
      ["fetch", ["$meta"], "kept"],
    ];
    for (const [step, path, value] of cases)
      expect(await jsonata(outputExpression(step, path)).evaluate(data)).toEqual(value);
  });
});

describe("outputFieldsAt, completion after steps.<name>.output.", () => {
  const known = { fetch: OUTPUT, "fetch-data": { n: 1 }, flat: 5 };
  const labels = (before: string) => outputFieldsAt(before, known)?.options.map((o) => o.label);

  it("offers the output's keys, and what is typed of one", () => {
    const at = outputFieldsAt('    output: "{{ steps.fetch.output.co', known);
    expect(at?.word).toBe("co");
    expect(at?.options.map((o) => [o.label, o.apply, o.detail])).toEqual([
      ["items", "items", "list of 2"],
      ["count", "count", "2"],
      ["$meta", "`$meta`", '"kept"'],
    ]);
  });

  it("follows a path of names and indices; after a list, offers its items' keys", () => {
    expect(labels("{{ steps.fetch.output.items[1].")).toEqual(["id", "tags"]);
    expect(labels("{{ steps.fetch.output.items.")).toEqual(["id", "my key"]);
    expect(outputFieldsAt("{{ steps.fetch.output.items[0].", known)?.options[1]?.apply).toBe("`my key`");
    expect(labels("{{ steps.fetch.output.items[0].`my key`.")).toEqual(["x-y"]);
    expect(labels("{{ steps.`fetch-data`.output.")).toEqual(["n"]);
  });

  it("offers nothing outside an expression, for an unknown step, or where the value has no fields", () => {
    expect(labels("steps.fetch.output.")).toBeUndefined();
    expect(labels("{{ steps.fetch.output.count }} steps.fetch.output.")).toBeUndefined();
    expect(labels("{{ steps.other.output.")).toBeUndefined();
    expect(labels("{{ steps.flat.output.")).toBeUndefined();
    expect(labels("{{ steps.fetch.output.count.")).toBeUndefined();
  });
});

describe("outputPathAt, the output path under the pointer", () => {
  const line = '    input: "{{ steps.fetch.output.items[0].`my key` }} and steps.fetch.output.count"';
  const at = (text: string) => outputPathAt(line, line.indexOf(text));

  it("cuts the path after the segment pointed at", () => {
    expect(at("items")).toMatchObject({ step: "fetch", path: ["items"] });
    expect(at("[0]")).toMatchObject({ path: ["items", 0] });
    expect(at("`my key`")).toMatchObject({ path: ["items", 0, "my key"] });
    expect(at("fetch.output.items")).toMatchObject({ step: "fetch", path: [] });
    const found = at("items")!;
    expect(line.slice(found.from, found.to)).toBe("steps.fetch.output.items");
  });

  it("reads only paths inside an expression", () => {
    expect(at("steps.fetch.output.count")).toBeNull();
    expect(outputPathAt("    condition: steps.f.output.ok = true", 30)).toMatchObject({ step: "f", path: ["ok"] });
    expect(at(" and ")).toBeNull();
  });
});
