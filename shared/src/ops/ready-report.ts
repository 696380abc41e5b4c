import { z } from "zod";
import { isStopping } from "./stopping";

export const OK = "ok";

/** Whether a process, or a part of it, can take work: each check's verdict, `ok` or what is wrong. */
export const ReadyReport = z.object({ ready: z.boolean(), checks: z.record(z.string(), z.string()) });
export type ReadyReport = z.infer<typeof ReadyReport>;

export function reportOf(checks: Record<string, string>): ReadyReport {
  return { ready: Object.values(checks).every((v) => v === OK), checks };
}

export const STARTING: ReadyReport = { ready: false, checks: { process: "starting" } };
export const STOPPING: ReadyReport = { ready: false, checks: { process: "stopping" } };

/** Several parts' reports as one, each check named after its part (`executor thread: nats`). */
export function mergeReports(parts: { name: string | null; report: ReadyReport }[]): ReadyReport {
  const checks: Record<string, string> = {};
  for (const { name, report } of parts) {
    for (const [check, verdict] of Object.entries(report.checks))
      checks[name === null ? check : `${name}: ${check}`] = verdict;
  }
  return { ready: parts.every((p) => p.report.ready), checks };
}

export interface ReadyAnswer {
  status: 200 | 503;
  body: { status: "ready" | "not ready"; checks: Record<string, string> };
}

/** What `/readyz` answers: 200 when ready, else 503 naming what is not; 503 from the moment the process is stopping. */
export async function readyAnswer(report: () => Promise<ReadyReport>): Promise<ReadyAnswer> {
  const checked = isStopping() ? STOPPING : await report();
  // A stop that began while the checks ran wins.
  const r = isStopping() ? STOPPING : checked;
  return r.ready
    ? { status: 200, body: { status: "ready", checks: r.checks } }
    : { status: 503, body: { status: "not ready", checks: r.checks } };
}
