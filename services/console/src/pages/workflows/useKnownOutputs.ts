import { useCallback, useMemo, useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { api, query } from "../../api/client";
import type { ExecutionList } from "../../api/types";
import type { KnownData } from "../../editor";
import { hasEnded } from "../executions/execution-status";
import { fetchExecution, keys } from "../executions/queries";
import { knownData } from "./known-data";

export interface KnownOutputs {
  /** The output of each top-level step by name: a step test's of this session, over its pin, over the latest run's. */
  outputs: Readonly<Record<string, unknown>>;
  /** What expressions are previewed on: each step's result (a pin or a test stands as COMPLETED), the run's variables. */
  data: KnownData;
  /** A step test of `step` completed with `output`. */
  tested(step: string, output: unknown): void;
}

/**
 * What the editor knows of its steps' outputs, for picking fields (click-to-map) and completing
 * `steps.<name>.output.`: the latest ended run of the saved workflow, the pins, and the step tests run here.
 */
export function useKnownOutputs(
  workflowId: string | null,
  pins: Readonly<Record<string, { output: unknown }>>,
): KnownOutputs {
  // The same query as the step test's choice of an earlier run: one request serves both.
  const latest = useQuery({
    queryKey: ["executions", "of-workflow", workflowId],
    queryFn: ({ signal }) =>
      api<ExecutionList>("GET", `/api/console/executions${query({ workflowId, limit: 10 })}`, undefined, signal),
    enabled: workflowId !== null,
    select: (list) => list.items.find((e) => hasEnded(e.status))?.id ?? null,
  });
  const runId = latest.data ?? null;
  const run = useQuery({
    queryKey: keys.execution(runId ?? ""),
    queryFn: ({ signal }) => fetchExecution(runId!, signal),
    enabled: runId !== null,
  });
  const [tests, setTests] = useState<Readonly<Record<string, unknown>>>({});
  const tested = useCallback(
    (step: string, output: unknown) => setTests((before) => ({ ...before, [step]: output })),
    [],
  );
  const outputs = useMemo(() => {
    const known: Record<string, unknown> = {};
    // A step's path is its name at the top level; `loop[2].name` inside a foreach, or `group.name`, is not reachable as steps.<name>.
    for (const [path, step] of Object.entries(run.data?.steps ?? {}))
      if (step.status === "COMPLETED" && !/[[.]/.test(path)) known[path] = step.output;
    for (const [name, pin] of Object.entries(pins)) known[name] = pin.output;
    return { ...known, ...tests };
  }, [run.data, pins, tests]);
  const data = useMemo(() => knownData(run.data, outputs), [run.data, outputs]);
  return { outputs, data, tested };
}
