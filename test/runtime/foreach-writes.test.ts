import type { Msg } from "@nats-io/nats-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useNatsServer } from "@wf/testing/nats-connection";
import { endedEventTypes, run, startRuntime, testConfig, type InProcessRuntime } from "../support/runtime";
import { countWrites, type WriteCounts } from "../support/write-counts";

/**
 * How often a foreach or a parallel of steps that act outside writes its execution's record
 * (docs/architecture.md#durability-by-effect), counted as test/bench/throughput.ts counts: by the sequences of the
 * records bucket's stream, the index bucket's and the events'.
 */
const nats = useNatsServer();
let rt: InProcessRuntime;
/** Each write of the record: the status of each item's step. */
const written: Record<string, string>[] = [];

beforeAll(async () => {
  rt = await startRuntime(testConfig(nats.server), { approvals: false, scheduler: false });
  rt.platform.nc.subscribe(`$KV.${rt.ns}_executions.>`, {
    callback: (_err: unknown, m: Msg) => {
      if (m.data.length === 0) return;
      const steps = m.json<{ steps: Record<string, { status: string }> }>().steps;
      written.push(Object.fromEntries(Object.entries(steps).map(([path, st]) => [path, st.status])));
    },
  });
  await rt.platform.nc.flush();
});
afterAll(async () => {
  await rt?.stop();
});

const ITEMS = 10;

/** Runs `yaml` to its end: what it wrote to the records, index and event streams. */
function writesOf(yaml: string): Promise<WriteCounts> {
  return countWrites(
    rt,
    () => (written.length = 0),
    async () => {
      const id = await run(rt.platform, yaml);
      expect((await endedEventTypes(rt.platform.jsm, rt.ns, id)).at(-1)).toBe("exec_completed");
    },
  );
}

describe("the writes of a foreach of Python steps", () => {
  it("writes each item's result with the next item's start: a write an item, and the end", async () => {
    const writes = await writesOf(`
name: each-python
steps:
  - name: each
    type: foreach
    items: [${Array.from({ length: ITEMS }, (_, i) => i).join(", ")}]
    steps:
      - { name: py, type: code, language: python, code: "print(2)" }
`);
    // Each item's start (the one before it carried along), and the end, which carries the last item's result (the
    // foreach is the workflow's last step). Before, each item's result was written on its own too, 2 × 10 + 1 = 21
    // writes; then the last one's still was, as its worker stopped, 10 + 2 = 12.
    expect(writes).toEqual({ records: ITEMS + 1, index: 2, published: 4 + 2 * ITEMS });
    // No item's program starts while an earlier item's result is unwritten: each write that starts item i records
    // item i - 1 COMPLETED.
    const item = (w: Record<string, string>, i: number) => w[`each[${i}].py`];
    for (const [n, w] of written.slice(0, ITEMS).entries()) {
      expect(item(w, n)).toBe("RUNNING");
      if (n > 0) expect(item(w, n - 1)).toBe("COMPLETED");
    }
    expect(item(written[ITEMS]!, ITEMS - 1)).toBe("COMPLETED");
  }, 60_000);
});

describe("the writes of a parallel's branches of Python steps", () => {
  it("writes a branch's last result with the next step's start", async () => {
    const writes = await writesOf(`
name: branch-python
steps:
  - name: both
    type: parallel
    branches:
      only:
        - { name: first, type: code, language: python, code: "print(1)" }
        - { name: second, type: code, language: python, code: "print(2)" }
  - { name: after, type: code, language: python, code: "print(3)" }
`);
    // The three steps' starts (each carrying the result before it) and the end: before, the branch's last result was
    // written on its own, 5 writes.
    expect(writes).toMatchObject({ records: 4, index: 2 });
    expect(written.map((w) => [w.first, w.second, w.after])).toEqual([
      ["RUNNING", undefined, undefined],
      ["COMPLETED", "RUNNING", undefined],
      ["COMPLETED", "COMPLETED", "RUNNING"],
      ["COMPLETED", "COMPLETED", "COMPLETED"],
    ]);
  }, 60_000);
});
