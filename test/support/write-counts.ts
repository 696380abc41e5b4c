import { streamNames } from "@wf/shared/nats";
import { lastSeq } from "../bench/context";
import { endedEventTypes, run, type InProcessRuntime } from "./runtime";

/** What a run wrote: puts to the records bucket's stream, to the index bucket's, and events published. */
export interface WriteCounts {
  records: number;
  index: number;
  published: number;
}

/**
 * What `runToEnd` writes, counted as test/bench/throughput.ts counts: by the sequences of the records bucket's stream,
 * the index bucket's and the events'. The sandbox's runner is started first (a Python step run to its end), so that
 * nothing else is written meanwhile; `reset` then empties what the caller watched of the warm-up.
 */
export async function countWrites(
  rt: InProcessRuntime,
  reset: () => void,
  runToEnd: () => Promise<void>,
): Promise<WriteCounts> {
  const warm = await run(
    rt.platform,
    "name: warm\nsteps:\n  - { name: py, type: code, language: python, code: print(1) }\n",
  );
  await endedEventTypes(rt.platform.jsm, rt.ns, warm);
  await rt.platform.nc.flush();
  const streams = [`KV_${rt.ns}_executions`, `KV_${rt.ns}_executions_idx`, streamNames(rt.ns).evt];
  const sequences = () => Promise.all(streams.map((s) => lastSeq(rt.platform.jsm, s)));
  const before = await sequences();
  reset();
  await runToEnd();
  await rt.platform.nc.flush();
  const [records, index, published] = (await sequences()).map((seq, i) => seq - before[i]!);
  return { records: records!, index: index!, published: published! };
}
