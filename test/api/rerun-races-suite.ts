import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ArtifactList, RerunResponse } from "@wf/shared/api";
import { TERMINAL_STATUSES, ZERO_USAGE } from "@wf/shared/execution";
import { LlmTestServer } from "../ai/support/llm-server";
import { LOOPBACK_ALLOWANCE, PRICES, model } from "../ai/support/ai-env";
import { waitFor, waitForStatus } from "../support/runtime";
import {
  call,
  consoleAccount,
  ended,
  startV1,
  storeWorkflow,
  useApi,
  type ApiEnv,
  type ConsoleAccount,
} from "./support";

/**
 * Reruns under concurrency, over the console API against the edge and the executor on a real nats-server: several
 * reruns of one source started at once (some with an edited definition, two of them the same text), and a rerun
 * started the moment its source ended, while its artifacts and result are being read. Each rerun must be an execution
 * of its own that reuses exactly what the source recorded, with its own artifact records and the source's usage as
 * savedUsage; each edited text must be stored as a version once, none lost. Run plainly (rerun-races.test.ts) and with
 * every command handled twice, a rerun's start among them (rerun-races-redelivered.test.ts).
 */

let openai: LlmTestServer;

/** An LLM step, a code step writing an artifact, then `check`, whose code each variant gives. */
function yaml(m: string, check: string): string {
  return `
name: rerun-races
steps:
  - { name: draft, type: llm, model: ${m}, prompt: "draft a note" }
  - name: write
    type: code
    language: javascript
    code: |
      artifacts.write("reports/note.txt", "written once");
      return "written";
  - name: check
    type: code
    language: javascript
    input: { draft: "{{ steps.draft.output }}" }
    code: ${check}
`;
}
const FAILING = `'throw new Error("the check is wrong")'`;
const FIXED_A = `'return { checked: input.draft }'`;
const FIXED_B = `'return { checked: input.draft, by: "b" }'`;

function rerun(env: ApiEnv, who: ConsoleAccount, executionId: string, body: unknown) {
  return call(env, "POST", `/api/console/executions/${executionId}/rerun`, {
    body,
    headers: { cookie: who.cookie, "x-csrf-token": who.csrf },
  });
}

const artifactsOf = (env: ApiEnv, who: ConsoleAccount, id: string) =>
  call(env, "GET", `/api/v1/executions/${id}/artifacts`, { key: who.key }).then((r) => ArtifactList.parse(r.json()));

/** A failed source run of the workflow: its LLM step billed, its artifact written. */
async function failedSource(env: ApiEnv, who: ConsoleAccount) {
  const m = model();
  openai.script(m, { text: "a draft", usage: { prompt: 321, completion: 45 } });
  const w = await storeWorkflow(env, who.user.id, yaml(m, FAILING));
  const sourceId = await startV1(env, who, w);
  return { m, w, sourceId };
}

/** Shared by the plain run and the WF_REDELIVER_ONCE run (every command handled twice). */
export function rerunRaceSuite(env: Record<string, string> = {}): void {
  // Filled before the environment starts (hooks run in the order they are registered).
  const serviceEnv: Record<string, string> = { ...LOOPBACK_ALLOWANCE, ...env };
  beforeAll(async () => {
    openai = await LlmTestServer.start("openai");
    serviceEnv.WF_LLM_PROVIDERS = JSON.stringify([
      { name: "rerun-races-openai", protocol: "openai", baseUrl: openai.baseUrl, apiKey: "sk-rerun-races-0001" },
    ]);
    serviceEnv.WF_LLM_PRICES = JSON.stringify(PRICES);
  });
  const api = useApi({ runtime: true, env: serviceEnv });
  afterAll(async () => {
    await openai?.close();
  });

  describe(`reruns at once${"WF_REDELIVER_ONCE" in env ? " (every command handled twice)" : ""}`, () => {
    it("five reruns of one source at once, three edited (two alike): five executions, each reusing the source exactly; no edit lost", async () => {
      const me = await consoleAccount(api());
      const { m, w, sourceId } = await failedSource(api(), me);
      const source = await ended(api(), me, sourceId);
      expect(source.status).toBe("FAILED");
      const [sourceArtifact] = (await artifactsOf(api(), me, sourceId)).artifacts;
      const calls = openai.requests(m).length;

      const texts = [undefined, undefined, yaml(m, FIXED_A), yaml(m, FIXED_A), yaml(m, FIXED_B)];
      const answers = await Promise.all(
        texts.map((definition) =>
          rerun(api(), me, sourceId, { fromStep: "check", ...(definition ? { definition } : {}) }),
        ),
      );
      expect(
        answers.map((a) => a.statusCode),
        answers.map((a) => a.body).join("\n"),
      ).toEqual([202, 202, 202, 202, 202]);
      const started = answers.map((a) => RerunResponse.parse(a.json()));
      expect(new Set(started.map((s) => s.executionId)).size).toBe(5);
      for (const s of started) {
        expect(s).toMatchObject({ rerunOf: sourceId, reusedSteps: ["draft", "write"], savedUsage: source.usage });
      }

      // Stored one after the other, whichever order they came in: each text a version, none lost; an edit never
      // stored over the same text (the two alike store one version, unless B came between them: A, B, A).
      const stored = (await api().platform.store.workflows.get(w.id))!.value;
      const versions = [...(stored.history ?? []), { version: stored.version, yaml: stored.yaml }];
      expect(versions.map((v) => v.version)).toEqual([1, 2, 3, 4].slice(0, versions.length));
      expect([3, 4]).toContain(versions.length);
      expect(new Set(versions.map((v) => v.yaml))).toEqual(
        new Set([yaml(m, FAILING), yaml(m, FIXED_A), yaml(m, FIXED_B)]),
      );
      for (let i = 1; i < versions.length; i++) expect(versions[i]!.yaml).not.toBe(versions[i - 1]!.yaml);
      const yamlOf = (version: number | null) => versions.find((v) => v.version === version)?.yaml;

      // Each rerun has an artifact record of its own for the one stored file.
      const artifactIds = new Set([sourceArtifact!.id]);
      for (const [i, s] of started.entries()) {
        const view = await ended(api(), me, s.executionId);
        const text = texts[i];
        expect([view.status, view.error], s.executionId).toEqual(text ? ["COMPLETED", null] : ["FAILED", view.error]);
        expect(view).toMatchObject({ rerunOf: sourceId, savedUsage: source.usage, usage: ZERO_USAGE });
        for (const step of ["draft", "write"] as const) {
          expect(view.stepResults[step]).toEqual({ ...source.stepResults[step], reused: true });
        }
        const snap = await waitForStatus(api().platform, s.executionId);
        // Each ran the version holding its text.
        expect(yamlOf(snap.workflowVersion)).toBe(text ?? yaml(m, FAILING));
        const listed = await artifactsOf(api(), me, s.executionId);
        expect(listed.artifacts.map((a) => a.storageKey)).toEqual([sourceArtifact!.storageKey]);
        artifactIds.add(listed.artifacts[0]!.id);
      }
      expect(artifactIds.size).toBe(6);
      // Nothing reused was run again.
      expect(openai.requests(m)).toHaveLength(calls);
    });

    it("a rerun started the moment its source ended, while its artifacts and result are read: the usage it saves is exact", async () => {
      const me = await consoleAccount(api());
      const { m, sourceId } = await failedSource(api(), me);
      await waitFor(
        async () => {
          const s = (await api().platform.store.executions.get(sourceId))?.value;
          return s && TERMINAL_STATUSES.has(s.status) ? s : undefined;
        },
        { intervalMs: 2, timeoutMs: 20_000, what: `source ${sourceId} to end` },
      );
      const [answer, artifacts, result] = await Promise.all([
        rerun(api(), me, sourceId, { fromStep: "check", definition: yaml(m, FIXED_A) }),
        artifactsOf(api(), me, sourceId),
        call(api(), "GET", `/api/v1/executions/${sourceId}/result`, { key: me.key }),
        artifactsOf(api(), me, sourceId),
      ]);
      expect(answer.statusCode, answer.body).toBe(202);
      const source = await ended(api(), me, sourceId);
      expect(result.statusCode).toBe(200);
      expect(artifacts.total).toBe(1);
      const started = RerunResponse.parse(answer.json());
      expect(started.savedUsage).toEqual(source.usage);
      expect(source.usage.totalTokens).toBe(321 + 45);
      const view = await ended(api(), me, started.executionId);
      expect(view).toMatchObject({ status: "COMPLETED", savedUsage: source.usage, usage: ZERO_USAGE });
      expect((await artifactsOf(api(), me, started.executionId)).total).toBe(1);
    });
  });
}
