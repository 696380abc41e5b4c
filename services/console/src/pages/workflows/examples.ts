/** Starting points for a new workflow: each runs as it is, with no secrets or model providers. */
export interface Template {
  key: string;
  title: string;
  summary: string;
  yaml: string;
}

export const BLANK: Template = {
  key: "blank",
  title: "Blank",
  summary: "A name and one step, to write your own.",
  yaml: `name: untitled
steps:
  - name: first
    type: transform
    output: {}
`,
};

export const EXAMPLES: Template[] = [
  {
    key: "hello",
    title: "Hello",
    summary: "Takes a name as input and greets it with a transform step.",
    yaml: `name: hello
description: Greets someone by name.
variables:
  who: { type: string, required: true, description: Who to greet }
steps:
  - name: greet
    type: transform
    output:
      greeting: "Hello, {{ vars.who }}!"
`,
  },
  {
    key: "python",
    title: "Python with a retry",
    summary: "A Python step that reads its inputs from the environment, retried on failure.",
    yaml: `name: word-count
description: Counts the words of a text in Python.
variables:
  text: { type: string, default: "the quick brown fox" }
steps:
  - name: count
    type: code
    language: python
    timeout: 10
    retry: { max_attempts: 2, backoff: fixed, initial_delay: 1 }
    code: |
      import json, os
      words = os.environ["WF_VAR_text"].split()
      print(json.dumps({"words": len(words)}))
`,
  },
  {
    key: "javascript",
    title: "JavaScript, then a message",
    summary: "A JavaScript step makes a list; the next step writes a line from it.",
    yaml: `name: first-item
description: Makes a list in JavaScript, then says which item comes first.
steps:
  - name: fetch
    type: code
    language: javascript
    timeout: 10
    code: |
      console.log("making the list");
      return { items: [{ id: "a1", title: "First" }, { id: "b2", title: "Second" }] };
  - name: announce
    type: transform
    output: "The first item is "
`,
  },
  {
    key: "loop",
    title: "Loop over a list",
    summary: "A foreach over a list input, two items at a time, then a summary.",
    yaml: `name: loop
description: Doubles each number of a list, then sums them up.
variables:
  numbers: { type: array, default: [1, 2, 3] }
steps:
  - name: each
    type: foreach
    items: "{{ vars.numbers }}"
    concurrency: 2
    steps:
      - name: double
        type: transform
        output: "{{ item * 2 }}"
  - name: total
    type: transform
    output:
      doubled: "{{ steps.each.output }}"
      sum: "{{ $sum(steps.each.output) }}"
`,
  },
];

export function templateByKey(key: string | null): Template {
  return EXAMPLES.find((t) => t.key === key) ?? BLANK;
}
