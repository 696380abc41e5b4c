import { describe, expect, it } from "vitest";
import { setCollection, setField } from "./index";
import { editedText } from "./testing/edited";

const LOOP = `name: regions   # by hand
steps:
  - name: loop
    type: foreach
    items:   # the regions
      - north   # cold
      # the middle one
      - middle

      - south
    steps:
      - name: show
        type: transform
        output: "{{ item }}"
  - name: sub
    type: workflow
    workflow: other
    inputs:
      # how many
      limit: 5   # rows per page
      # the day to read
      day: today  # or a date
      rows:
        - id: 1   # the first
          # kept with it: deeper than the items
        - id: 2
      # last
`;

describe("setCollection keeps the comments of the entries that stay", () => {
  it("keeps a comment between list items when an item is added at the end", () => {
    expect(
      editedText(setCollection(LOOP, { id: "loop", key: "items", value: ["north", "middle", "south", "east"] })),
    ).toBe(LOOP.replace("      - south\n", "      - south\n      - east\n"));
  });

  it("carries an item's comments with it to its new place, and drops those of an item that went or changed", () => {
    expect(editedText(setCollection(LOOP, { id: "loop", key: "items", value: ["south", "north", "West"] }))).toBe(
      LOOP.replace(
        "      - north   # cold\n      # the middle one\n      - middle\n\n      - south\n",
        "      - south\n      - north   # cold\n      - West\n",
      ),
    );
    expect(editedText(setCollection(LOOP, { id: "loop", key: "items", value: ["NORTH", "middle"] }))).toBe(
      LOOP.replace(
        "      - north   # cold\n      # the middle one\n      - middle\n\n      - south\n",
        "      - NORTH\n      # the middle one\n      - middle\n",
      ),
    );
  });

  it("keeps a mapping entry's comments, when another entry's value changes and when its own does", () => {
    const inputs = { limit: 10, day: "today", rows: [{ id: 1 }, { id: 2 }] };
    expect(editedText(setCollection(LOOP, { id: "sub", key: "inputs", value: inputs }))).toBe(
      LOOP.replace("limit: 5   # rows", "limit: 10   # rows"),
    );
    // A list below a key keeps its own items so; the comment indented under an item stays with it.
    const fewer = { limit: 5, day: "2026-01-02", rows: [{ id: 1 }, { id: 3 }] };
    expect(editedText(setCollection(LOOP, { id: "sub", key: "inputs", value: fewer }))).toBe(
      LOOP.replace("day: today  # or a date", "day: 2026-01-02  # or a date").replace(
        "        - id: 2\n",
        "        - id: 3\n",
      ),
    );
  });

  it("drops the comments of the entries that went, and keeps the lines around the value as they were", () => {
    expect(editedText(setCollection(LOOP, { id: "sub", key: "inputs", value: { rows: [{ id: 2 }], page: 1 } }))).toBe(
      LOOP.replace(
        "      limit: 5   # rows per page\n      # the day to read\n      day: today  # or a date\n      rows:\n        - id: 1   # the first\n          # kept with it: deeper than the items\n",
        "      rows:\n",
      ).replace("        - id: 2\n", "        - id: 2\n      page: 1\n"),
    );
  });

  it("takes all of a list's comments with it when a template replaces it, the one on its last line too", () => {
    expect(editedText(setField(LOOP, { id: "loop", key: "items", value: "{{ vars.rows }}" }))).toBe(
      LOOP.replace(/items: {3}# the regions\n(?: {6}.*\n|\n)+/, 'items: "{{ vars.rows }}"\n'),
    );
    const last = LOOP.replace("      - south\n", "      - south   # warm\n");
    expect(editedText(setField(last, { id: "loop", key: "items", value: "{{ vars.rows }}" }))).toBe(
      LOOP.replace(/items: {3}# the regions\n(?: {6}.*\n|\n)+/, 'items: "{{ vars.rows }}"\n'),
    );
  });

  it("writes a value in flow style anew on one line, as before", () => {
    const flow = LOOP.replace(/ {4}items: {3}# the regions\n(?: {6}.*\n|\n)+/, "    items: [a, b]   # two\n");
    expect(editedText(setCollection(flow, { id: "loop", key: "items", value: ["a", "b", "c"] }))).toBe(
      flow.replace("items: [a, b]", "items: [ a, b, c ]"),
    );
  });

  it("writes all anew when an entry kept as written would read an anchor that went", () => {
    const anchored = LOOP.replace("limit: 5 ", "limit: &n 5 ").replace("id: 2", "id: *n");
    expect(
      editedText(setCollection(anchored, { id: "sub", key: "inputs", value: { rows: [{ id: 5 }], day: "x" } })),
    ).toBe(
      anchored.replace(
        /( {4}inputs:\n {6}# how many\n)(?: {6}.*\n| {8}.*\n| {10}.*\n)+/,
        "$1      rows:\n        - id: 5\n      day: x\n      # last\n",
      ),
    );
  });
});
