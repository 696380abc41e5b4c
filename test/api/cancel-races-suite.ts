import { describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { serverAtLeast } from "@wf/shared/nats";
import { natsServerBin } from "@wf/testing";
import { waitFor } from "../support/runtime";
import { account, call, ended, startV1, storeWorkflow, useApi, type Account, type ApiEnv } from "./support";

/** A wait written with its due time, before it is waited out (in memory, or parked); the run ends just after it. */
const ENDS_SOON_YAML = `
name: ends-soon
steps:
  - { name: pause, type: wait, seconds: 0.4 }
  - name: done
    type: transform
    output: { text: "finished" }
`;

/** When the cancels are sent, around the wait's due time: `fromMs` to `toMs` after it, `everyMs` apart. */
export interface CancelTimes {
  fromMs: number;
  toMs: number;
  everyMs: number;
}

/** Rounds of executions, each round several at once: each execution's cancel lands at its own point of the ending. */
const ROUNDS = 3;

interface Race {
  id: string;
  answer: number;
  answered: string | undefined;
  final: string;
}

/** The version of the nats-server binary the tests start (`nats-server --version`: `nats-server: v2.9.10`). */
function binaryVersion(): string | undefined {
  return /v(\d+\.\d+\.\d+)/.exec(execFileSync(natsServerBin(), ["--version"]).toString())?.[1];
}

/** The due time of the execution's wait, once its record shows it. */
function waitDue(env: ApiEnv, id: string): Promise<number> {
  return waitFor(
    async () => (await env.platform.store.executions.getForWrite(id))?.value.steps.pause?.waitUntil ?? undefined,
    { timeoutMs: 20_000, intervalMs: 5, what: `execution ${id}'s wait to be recorded` },
  );
}

/** One execution, cancelled `offsetMs` after its wait is due (before, for a negative one): the end and its answer. */
async function race(env: ApiEnv, me: Account, workflowId: string, offsetMs: number): Promise<Race> {
  const w = (await env.platform.store.workflows.get(workflowId))!.value;
  const id = await startV1(env, me, w);
  const due = await waitDue(env, id);
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, due + offsetMs - Date.now())));
  const r = await call(env, "POST", `/api/v1/executions/${id}/cancel`, { key: me.key });
  const answered = r.statusCode === 200 ? (r.json() as { status: string }).status : undefined;
  return { id, answer: r.statusCode, answered, final: (await ended(env, me, id)).status };
}

/**
 * Cancels racing the end of their executions' runs, sent at `times` around it: every 200 CANCELLED must be followed
 * by a CANCELLED end, and every execution that completed must have been told it had finished (404). `cluster`: on
 * that many clustered nats-servers.
 */
export function cancelRaceSuite(
  what: string,
  times: CancelTimes,
  env: Record<string, string> = {},
  cluster?: number,
): void {
  // nats-server 2.9 accepts on a cluster two compare-and-set writes made at once at the same version (300 pairs of
  // 300, measured; 2.15.1 none): a run's end then overwrites the cancel's flag (docs/architecture.md#executions).
  if (cluster !== undefined && !serverAtLeast(binaryVersion(), 2, 10)) {
    const skipped = `cancel racing the run's end, ${what} (skipped: needs nats-server 2.10+, this is ${binaryVersion()})`;
    console.warn(skipped);
    describe.skip(skipped, () => {
      it("is skipped", () => undefined);
    });
    return;
  }
  const api = useApi({ runtime: true, env, ...(cluster === undefined ? {} : { cluster }) });
  const offsets: number[] = [];
  for (let at = times.fromMs; at <= times.toMs; at += times.everyMs) offsets.push(at);

  describe(`cancel racing the run's end, ${what}`, () => {
    it("a 200 CANCELLED is always followed by a CANCELLED end; an execution that completed was answered 404", async () => {
      const env = api();
      const me = await account(env);
      const w = await storeWorkflow(env, me.user.id, ENDS_SOON_YAML);
      const races: Race[] = [];
      for (let round = 0; round < ROUNDS; round++)
        races.push(...(await Promise.all(offsets.map((offset) => race(env, me, w.id, offset)))));
      const told = races.filter((r) => r.answer === 200);
      const lied = told.filter((r) => r.final !== "CANCELLED");
      console.log(
        `cancel races, ${what}: ${races.length} executions, ${told.length} answered 200, ${lied.length} of them ` +
          `ended otherwise, ${races.filter((r) => r.final === "COMPLETED").length} COMPLETED`,
      );
      expect(lied).toEqual([]);
      for (const r of told) expect(r.answered).toBe("CANCELLED");
      for (const r of races) {
        if (r.final === "COMPLETED") expect(r.answer).toBe(404);
        else expect(r).toMatchObject({ answer: 200, final: "CANCELLED" });
      }
      // Both sides of the race were run: some cancels came in time, some too late.
      expect(told.length).toBeGreaterThan(0);
      expect(races.some((r) => r.final === "COMPLETED")).toBe(true);
    });
  });
}
