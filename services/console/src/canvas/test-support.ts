/** A workflow with every kind of nesting the canvas draws: steps, a foreach, a parallel of two branches. */
export const NESTED_WORKFLOW = `name: nested
steps:
  - { name: fetch, type: wait, seconds: 1 }
  - name: loop
    type: foreach
    items: [1, 2]
    steps:
      - { name: a, type: transform, output: 1 }
      - { name: b, type: transform, output: 2 }
  - name: both
    type: parallel
    branches:
      left: [{ name: l1, type: wait, seconds: 1 }]
      right: [{ name: r1, type: wait, seconds: 1 }, { name: r2, type: wait, seconds: 1 }]
  - { name: done, type: wait, seconds: 1 }
`;
