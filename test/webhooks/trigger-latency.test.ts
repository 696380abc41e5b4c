import { describe, expect, it } from "vitest";
import { createApiKey } from "@wf/shared/auth";
import { EdgeLatency } from "@wf/shared/messages";
import { subjects } from "@wf/shared/nats";
import { waitFor } from "@wf/testing";
import { consoleCall, consoleOwner, request, storeWorkflow, useWebhookEdge } from "./support";

const edge = useWebhookEdge();

describe("the edge's trigger latency report", () => {
  it("counts every webhook trigger and API start it answers, and nothing else, in reports twice a second", async () => {
    const env = edge();
    const reports: EdgeLatency[] = [];
    const sub = env.platform.nc.subscribe(subjects(env.ns).edgeLatency, {
      callback: (_err, msg) => {
        reports.push(EdgeLatency.parse(msg.json()));
      },
    });
    try {
      const o = await consoleOwner(env);
      const wf = await storeWorkflow(env, o.user.id);
      const hook = await consoleCall(env, o.session, "POST", "/api/webhooks", { workflowId: wf.id, name: "hook" });
      expect(hook.status).toBe(201);
      const { key } = await createApiKey(env.platform.store, { ownerId: o.user.id, scopes: ["WORKFLOW_EXECUTE"] });
      // Neither a trigger nor a start: the console's reads, and a request no route takes.
      for (let i = 0; i < 5; i++) {
        expect((await consoleCall(env, o.session, "GET", "/api/webhooks")).status).toBe(200);
        expect((await request(env, "POST", "/api/v1/nowhere")).status).toBe(404);
      }
      const answers: number[] = [];
      for (let i = 0; i < 12; i++) {
        answers.push(
          (await request(env, "POST", `/api/webhooks/${hook.body.id as string}/trigger`, { body: "{}" })).status,
        );
        answers.push(
          (await request(env, "POST", `/api/webhook-trigger/${hook.body.id as string}`, { body: "{}" })).status,
        );
      }
      for (let i = 0; i < 6; i++) {
        const started = await request(env, "POST", `/api/v1/workflows/${wf.id}/executions`, {
          body: "{}",
          headers: { authorization: `Bearer ${key}` },
        });
        answers.push(started.status);
      }
      // A refused trigger is answered too, and counts.
      answers.push((await request(env, "POST", "/api/webhooks/wh_unknown/trigger", { body: "{}" })).status);
      expect(answers.filter((s) => s === 202)).toHaveLength(30);
      expect(answers.at(-1)).toBe(404);

      const counted = () => reports.reduce((n, r) => n + r.triggers, 0);
      await waitFor(() => counted() === 31, { timeoutMs: 5_000, what: "reports of the 31 triggers" });
      expect(new Set(reports.map((r) => r.edge)).size).toBe(1);
      for (const r of reports) expect(r.p99Ms).toBeGreaterThan(0);
      // With no triggers, no reports: a quiet edge says nothing.
      const before = reports.length;
      await new Promise((resolve) => setTimeout(resolve, 1_200));
      expect(reports.length).toBe(before);
      expect(counted()).toBe(31);
    } finally {
      sub.unsubscribe();
    }
  });
});
