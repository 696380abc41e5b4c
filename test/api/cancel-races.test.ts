import { describe, expect, it } from "vitest";
import { waitFor } from "../support/runtime";
import { account, call, ended, startV1, storeWorkflow, useApi, type Account, type ApiEnv } from "./support";

const api = useApi({ runtime: true });

/** A wait short enough to be waited out in memory, written with its due time; the run ends just after it. */
const ENDS_SOON_YAML = `
name: ends-soon
steps:
  - { name: pause, type: wait, seconds: 0.4 }
  - name: done
    type: transform
    output: { text: "finished" }
`;

/** Cancels sent from this long before the wait's due time to this long after it, one ms apart. */
const BEFORE_MS = 20;
const AFTER_MS = 2;
const ROUNDS = 3;

interface Race {
  id: string;
  answer: number;
  answered: string | undefined;
  final: string;
}

/** The due time of the execution's wait, once its record shows it. */
function waitDue(env: ApiEnv, id: string): Promise<number> {
  return waitFor(
    async () => (await env.platform.store.executions.getForWrite(id))?.value.steps.pause?.waitUntil ?? undefined,
    { timeoutMs: 20_000, intervalMs: 5, what: `execution ${id}'s wait to be recorded` },
  );
}

/** One execution whose run ends about `offsetMs` after its cancel is sent (before it, for a negative one). */
async function race(env: ApiEnv, me: Account, workflowId: string, offsetMs: number): Promise<Race> {
  const w = (await env.platform.store.workflows.get(workflowId))!.value;
  const id = await startV1(env, me, w);
  const due = await waitDue(env, id);
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, due + offsetMs - Date.now())));
  const r = await call(env, "POST", `/api/v1/executions/${id}/cancel`, { key: me.key });
  const answered = r.statusCode === 200 ? (r.json() as { status: string }).status : undefined;
  return { id, answer: r.statusCode, answered, final: (await ended(env, me, id)).status };
}

describe("cancel racing the run's end", () => {
  it("a 200 CANCELLED is always followed by a CANCELLED end; an execution that completed was answered 404", async () => {
    const env = api();
    const me = await account(env);
    const w = await storeWorkflow(env, me.user.id, ENDS_SOON_YAML);
    const races: Race[] = [];
    // Several at once: each execution's cancel lands at its own point of the run's ending.
    for (let round = 0; round < ROUNDS; round++)
      races.push(
        ...(await Promise.all(
          Array.from({ length: BEFORE_MS + AFTER_MS + 1 }, (_, i) => race(env, me, w.id, i - BEFORE_MS)),
        )),
      );
    const told = races.filter((r) => r.answer === 200);
    const lied = told.filter((r) => r.final !== "CANCELLED");
    console.log(
      `cancel races: ${races.length} executions, ${told.length} answered 200, ${lied.length} of them ended otherwise, ` +
        `${races.filter((r) => r.final === "COMPLETED").length} COMPLETED`,
    );
    expect(lied).toEqual([]);
    for (const r of told) expect(r.answered).toBe("CANCELLED");
    // Every execution that completed was told it had finished; the others were all cancelled.
    for (const r of races) {
      if (r.final === "COMPLETED") expect(r.answer).toBe(404);
      else expect(r).toMatchObject({ answer: 200, final: "CANCELLED" });
    }
    // Both sides of the race were run: some cancels came in time, some too late.
    expect(told.length).toBeGreaterThan(0);
    expect(races.some((r) => r.final === "COMPLETED")).toBe(true);
  });
});
