import { describe, expect, it } from "vitest";
import { setCollection, setField, writtenFields } from "./index";
import { editedText } from "./testing/edited";

const LOOP = `name: regions
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
      rows:
        - id: 1   # the first
          # kept with it: deeper than the items
        - id: 2
      # last
  - name: bare
    type: workflow
    workflow: other
`;

describe("writtenFields", () => {
  it("shows a block list or mapping as the file writes it, its comments included, flush left", () => {
    expect(writtenFields(LOOP, "loop", [["items"], ["steps"], ["type"]])).toEqual([
      "# the regions\n- north   # cold\n# the middle one\n- middle\n\n- south",
      // `steps` is no field to edit; a scalar is shown from its value.
      undefined,
      undefined,
    ]);
    expect(writtenFields(LOOP, "sub", [["inputs"]])).toEqual([
      "# how many\nlimit: 5   # rows per page\nrows:\n  - id: 1   # the first\n    # kept with it: deeper than the items\n  - id: 2\n# last",
    ]);
    expect(writtenFields(LOOP, "bare", [["inputs"]])).toEqual([undefined]);
    expect(writtenFields(LOOP.replace("items:   # the regions\n", "items: [a, b]\n"), "loop", [["items"]])).toEqual([
      undefined,
    ]);
    expect(writtenFields(`${LOOP}  - [`, "loop", [["items"]])).toEqual([undefined]);
  });
});

describe("setCollection with the text typed", () => {
  it("writes a block list as typed in place of the lines shown, comments and blank lines too", () => {
    const typed = "# the regions\n# from the map\n- north   # very cold\n- middle\n\n- south\n- east  # new";
    const after = editedText(
      setCollection(LOOP, { id: "loop", key: "items", value: ["north", "middle", "south", "east"], text: typed }),
    );
    expect(after).toBe(
      LOOP.replace(
        "      - north   # cold\n      # the middle one\n      - middle\n\n      - south\n",
        "      # from the map\n      - north   # very cold\n      - middle\n\n      - south\n      - east  # new\n",
      ),
    );
    // Shown again as it was typed; a comment typed after the last item too, and written in its place next time.
    expect(writtenFields(after, "loop", [["items"]])).toEqual([typed]);
    const ended = editedText(
      setCollection(after, { id: "loop", key: "items", value: ["north"], text: "# the regions\n- north\n# no more" }),
    );
    expect(writtenFields(ended, "loop", [["items"]])).toEqual(["# the regions\n- north\n# no more"]);
    expect(
      editedText(setCollection(ended, { id: "loop", key: "items", value: ["north"], text: "# the regions\n- north" })),
    ).toBe(after.replace(/ {6}# from the map\n(?: {6}.*\n|\n)+/, "      - north\n"));
  });

  it("writes the box's first line back at the end of the key's line, where the file has its comment", () => {
    const items = "- north   # cold\n# the middle one\n- middle\n\n- south";
    const value = ["north", "middle", "south"];
    // As shown: nothing to write.
    const same = setCollection(LOOP, { id: "loop", key: "items", value, text: `# the regions\n${items}` });
    expect(same.ok && same.edits).toEqual([]);
    const changed = editedText(
      setCollection(LOOP, { id: "loop", key: "items", value, text: `# the places\n${items}` }),
    );
    expect(changed).toBe(LOOP.replace("items:   # the regions\n", "items:   # the places\n"));
    expect(writtenFields(changed, "loop", [["items"]])).toEqual([`# the places\n${items}`]);
    // The first line taken out of the box: the key's line has no comment left, and nothing else moves.
    const gone = editedText(setCollection(LOOP, { id: "loop", key: "items", value, text: items }));
    expect(gone).toBe(LOOP.replace("items:   # the regions\n", "items:\n"));
    // A template typed under the box's first line in place of the list: the key's line keeps that comment.
    const template = { id: "loop", key: "items", value: "{{ vars.regions }}", comment: "# the regions" };
    expect(editedText(setField(LOOP, template))).toBe(
      LOOP.replace(/items: {3}# the regions\n(?: {6}.*\n|\n)+/, 'items: "{{ vars.regions }}"   # the regions\n'),
    );
  });

  it("writes a comment changed alone, and nothing for text that says what the file says", () => {
    const shown = writtenFields(LOOP, "sub", [["inputs"]])[0]!;
    const value = { limit: 5, rows: [{ id: 1 }, { id: 2 }] };
    expect(
      editedText(
        setCollection(LOOP, { id: "sub", key: "inputs", value, text: shown.replace("# how many", "# per page") }),
      ),
    ).toBe(LOOP.replace("      # how many\n", "      # per page\n"));
    const same = setCollection(LOOP, {
      id: "sub",
      key: "inputs",
      value,
      text: `  ${shown.replaceAll("\n", "\n  ")}\n\n`,
    });
    expect(same.ok && same.edits).toEqual([]);
  });

  it("writes typed lines below the key in place of an empty or flow value, and for a field not there yet", () => {
    const empty = LOOP.replace(/ {4}items: {3}# the regions\n(?: {6}.*\n|\n)+/, "    items: []   # none yet\n");
    expect(editedText(setCollection(empty, { id: "loop", key: "items", value: ["a"], text: "- a  # the first" }))).toBe(
      empty.replace("    items: []   # none yet\n", "    items:   # none yet\n      - a  # the first\n"),
    );
    expect(
      editedText(setCollection(LOOP, { id: "bare", key: "inputs", value: { day: "x" }, text: "# when\nday: x" })),
    ).toBe(`${LOOP}    inputs:\n      # when\n      day: x\n`);
  });

  it("writes the value as before for typed flow text, or typed text that would not read as the value", () => {
    expect(
      editedText(
        setCollection(LOOP, {
          id: "loop",
          key: "items",
          value: ["north", "middle", "south", "east"],
          text: "[north, middle, south, east]",
        }),
      ),
    ).toBe(LOOP.replace("      - south\n", "      - south\n      - east\n"));
    // The panel reads a typed `{{ }}` as a string; written into the file as typed it would be a mapping.
    expect(
      editedText(
        setCollection(LOOP, {
          id: "sub",
          key: "inputs",
          value: { day: "{{ vars.day }}" },
          text: "day: {{ vars.day }}",
        }),
      ),
    ).toBe(
      LOOP.replace(
        /( {6}# how many\n)(?: {6}.*\n| {8}.*\n| {10}.*\n)+/,
        '$1      day: "{{ vars.day }}"\n      # last\n',
      ),
    );
  });
});
