import { describe, expect, it } from "vitest";
import { ArtifactList, ArtifactView, ExecutionStatusView } from "@wf/shared/api";
import { PLAN_ARTIFACT_BYTES_PER_DAY } from "@wf/shared/auth";
import { CLOCK_SKEW_S } from "@wf/edge";
import { WindowCounters } from "@wf/shared/rate-limit";
import { JetStreamPublisher } from "@wf/shared/store";
import { waitFor } from "@wf/testing";
import { account, call, ended, storeWorkflow, useApi, type Account, type ApiEnv } from "./support";

const api = useApi({ runtime: true });

/**
 * The steps write the artifacts themselves, as any workflow would: the executor stores every
 * file a Python step writes into WF_ARTIFACTS_DIR, and every `artifacts.write` of a JavaScript
 * step, as artifacts of the execution under the step's name.
 */
const REPORT_YAML = `
name: report
variables:
  title: { type: string, required: true }
steps:
  - name: build
    type: code
    language: python
    code: |
      import json, os
      d = os.environ["WF_ARTIFACTS_DIR"]
      os.makedirs(os.path.join(d, "out"))
      with open(os.path.join(d, "out", "report.csv"), "w") as f:
          f.write("a,b\\n1,2\\n")
      with open(os.path.join(d, "chart.bin"), "wb") as f:
          f.write(bytes([1, 2, 3]))
      print(json.dumps({"title": os.environ["WF_VAR_title"]}))
  - name: summary
    type: code
    language: javascript
    code: |
      artifacts.write("data.json", JSON.stringify({ title: vars.title }));
      return "written";
`;

/** 300,000 bytes, byte i being i % 251, in a directory and under a name with a space. */
const BLOB_YAML = `
name: blob
steps:
  - name: build
    type: code
    language: python
    code: |
      import os
      d = os.path.join(os.environ["WF_ARTIFACTS_DIR"], "data")
      os.makedirs(d)
      with open(os.path.join(d, "blob one.bin"), "wb") as f:
          f.write(bytes(i % 251 for i in range(300000)))
`;

const NOTE_YAML = `
name: note
steps:
  - name: write
    type: code
    language: javascript
    code: |
      artifacts.write("note.txt", "a note");
      return "written";
`;

/** Starts the workflow through the API and waits for it to complete; its steps write the artifacts. */
async function completedExecution(
  env: ApiEnv,
  me: Account,
  yaml: string,
  inputs: Record<string, unknown> = {},
): Promise<ExecutionStatusView> {
  const w = await storeWorkflow(env, me.user.id, yaml);
  const started = await call(env, "POST", `/api/v1/workflows/${w.id}/executions`, { key: me.key, body: { inputs } });
  expect(started.statusCode).toBe(202);
  const { executionId } = started.json();
  const view = await ended(env, me, executionId);
  expect(view.status, view.error ?? "").toBe("COMPLETED");
  return view;
}

describe("artifacts", () => {
  it("lists the artifacts an execution's steps wrote and one artifact's metadata with a signed downloadUrl", async () => {
    const me = await account(api());
    const execution = await completedExecution(api(), me, REPORT_YAML, { title: "Q3" });
    const executionId = execution.id;
    expect(execution.stepResults.build!.output).toEqual({ title: "Q3" });
    expect(execution.stepResults.summary!.output).toBe("written");
    // The records the executor stored, to compare ids and storage keys with.
    const stored = new Map((await api().platform.store.artifacts.listByExecution(executionId)).map((a) => [a.path, a]));

    const r = await call(api(), "GET", `/api/v1/executions/${executionId}/artifacts`, { key: me.key });
    expect(r.statusCode).toBe(200);
    const list = ArtifactList.parse(r.json());
    expect(list.total).toBe(3);
    expect(list.artifacts.map((a) => a.path).sort()).toEqual(["chart.bin", "data.json", "out/report.csv"]);
    expect([...stored.keys()].sort()).toEqual(["chart.bin", "data.json", "out/report.csv"]);
    // Oldest first: the Python step's files before the JavaScript step's.
    const times = list.artifacts.map((a) => a.createdAt);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    const byPath = new Map(list.artifacts.map((a) => [a.path, a]));
    expect(byPath.get("data.json")!.createdAt).toBeGreaterThanOrEqual(
      Math.max(byPath.get("out/report.csv")!.createdAt, byPath.get("chart.bin")!.createdAt),
    );

    const report = stored.get("out/report.csv")!;
    expect(byPath.get("out/report.csv")).toEqual({
      id: report.id,
      name: "report.csv",
      path: "out/report.csv",
      storageKey: report.storageKey,
      downloadUrl: expect.stringMatching(
        new RegExp(`^/api/artifacts/${report.id}/download\\?expires=\\d+&sig=[0-9a-f]{64}$`),
      ),
      previewable: true,
      size: 8,
      contentType: "text/csv; charset=utf-8",
      stepName: "build",
      createdAt: report.createdAt,
    });
    expect(byPath.get("chart.bin")).toMatchObject({
      id: stored.get("chart.bin")!.id,
      name: "chart.bin",
      previewable: false,
      size: 3,
      stepName: "build",
    });
    expect(byPath.get("data.json")).toMatchObject({
      id: stored.get("data.json")!.id,
      name: "data.json",
      previewable: true,
      size: JSON.stringify({ title: "Q3" }).length,
      contentType: "application/json",
      stepName: "summary",
    });

    const chart = byPath.get("chart.bin")!;
    const one = await call(api(), "GET", `/api/v1/executions/${executionId}/artifacts/${chart.id}`, { key: me.key });
    expect(ArtifactView.parse(one.json())).toMatchObject({ id: chart.id, name: "chart.bin", size: 3 });
    const data = byPath.get("data.json")!;
    const written = await call(api(), "GET", `/api/v1/executions/${executionId}/artifacts/${data.id}`, { key: me.key });
    expect(ArtifactView.parse(written.json())).toMatchObject({
      id: data.id,
      path: "data.json",
      stepName: "summary",
      contentType: "application/json",
    });

    const stranger = await account(api());
    expect(
      (await call(api(), "GET", `/api/v1/executions/${executionId}/artifacts`, { key: stranger.key })).statusCode,
    ).toBe(404);
    expect(
      (await call(api(), "GET", `/api/v1/executions/${executionId}/artifacts/no-such`, { key: me.key })).statusCode,
    ).toBe(404);
    const elsewhere = await completedExecution(api(), me, REPORT_YAML, { title: "Q4" });
    const [other] = await api().platform.store.artifacts.listByExecution(elsewhere.id);
    expect(other).toBeDefined();
    // An artifact of another execution is not found under this one.
    expect(
      (await call(api(), "GET", `/api/v1/executions/${executionId}/artifacts/${other!.id}`, { key: me.key }))
        .statusCode,
    ).toBe(404);
  });

  it("stores an owner's artifacts up to their plan's bytes a UTC day; past it the step fails and stores none", async () => {
    const env = api();
    const [me, other] = [await account(env, { plan: "free" }), await account(env, { plan: "free" })];
    const limit = PLAN_ARTIFACT_BYTES_PER_DAY.free;
    // The count is a day's: this test must not straddle two.
    await waitFor(() => 86_400_000 - (Date.now() % 86_400_000) >= 30_000 || undefined, {
      timeoutMs: 35_000,
      what: "a UTC day with 30 s left",
    });
    // The owner's steps stored all but 10 bytes of the day already (as counted by every executor).
    const publisher = new JetStreamPublisher(env.platform.nc);
    const counters = await WindowCounters.open(env.platform.nc, env.ns, env.platform.placement, publisher);
    await counters.addAmount(`artifacts-${me.user.id}`, limit - 10, Date.now());
    await counters.close();
    publisher.close();

    // "a note" is 6 bytes: the first fits, the second does not.
    const fits = await completedExecution(env, me, NOTE_YAML);
    expect(fits.stepResults.write!.output).toBe("written");
    const w = await storeWorkflow(env, me.user.id, NOTE_YAML);
    const started = await call(env, "POST", `/api/v1/workflows/${w.id}/executions`, { key: me.key, body: {} });
    const refused = await ended(env, me, started.json<{ executionId: string }>().executionId);
    expect(refused.status).toBe("FAILED");
    expect(refused.error).toBe(
      `step \`write\`: its artifacts (6 bytes) were not stored: with them the owner's artifacts of the UTC day come to ${limit + 2} bytes, past the free plan's ${limit}`,
    );
    const listed = await call(env, "GET", `/api/v1/executions/${refused.id}/artifacts`, { key: me.key });
    expect(ArtifactList.parse(listed.json()).artifacts).toEqual([]);
    // Another owner's day is their own.
    expect((await completedExecution(env, other, NOTE_YAML)).stepResults.write!.output).toBe("written");
  });

  it("downloads through downloadUrl over HTTP, whole and by Range (206, 416); refuses a tampered or expired URL", async () => {
    const me = await account(api());
    const body = new Uint8Array(300_000).map((_, i) => i % 251);
    const { id: executionId } = await completedExecution(api(), me, BLOB_YAML);
    const listed = ArtifactList.parse(
      (await call(api(), "GET", `/api/v1/executions/${executionId}/artifacts`, { key: me.key })).json(),
    );
    expect(listed.total).toBe(1);
    const [artifact] = listed.artifacts;
    expect(artifact).toMatchObject({
      name: "blob one.bin",
      path: "data/blob one.bin",
      size: 300_000,
      previewable: false,
      stepName: "build",
    });
    const meta = ArtifactView.parse(
      (await call(api(), "GET", `/api/v1/executions/${executionId}/artifacts/${artifact!.id}`, { key: me.key })).json(),
    );
    expect(meta).toMatchObject({ id: artifact!.id, contentType: "application/octet-stream", size: 300_000 });
    const base = await api().app.listen({ port: 0, host: "127.0.0.1" });
    const url = `${base}${artifact!.downloadUrl}`;

    const whole = await fetch(url);
    expect(whole.status).toBe(200);
    expect(whole.headers.get("content-type")).toBe("application/octet-stream");
    expect(whole.headers.get("content-length")).toBe("300000");
    expect(whole.headers.get("content-disposition")).toBe(
      `attachment; filename="blob one.bin"; filename*=UTF-8''blob%20one.bin`,
    );
    expect(new Uint8Array(await whole.arrayBuffer())).toEqual(body);

    const part = await fetch(url, { headers: { range: "bytes=131000-131099" } });
    expect(part.status).toBe(206);
    expect(part.headers.get("content-range")).toBe("bytes 131000-131099/300000");
    expect(part.headers.get("content-length")).toBe("100");
    expect(new Uint8Array(await part.arrayBuffer())).toEqual(body.slice(131_000, 131_100));

    const tail = await fetch(url, { headers: { range: "bytes=-10" } });
    expect(tail.status).toBe(206);
    expect(new Uint8Array(await tail.arrayBuffer())).toEqual(body.slice(-10));

    const outside = await fetch(url, { headers: { range: "bytes=300000-" } });
    expect(outside.status).toBe(416);
    expect(outside.headers.get("content-range")).toBe("bytes */300000");
    expect(await outside.json()).toEqual({ error: expect.any(String), code: "RANGE_NOT_SATISFIABLE" });

    const since = Date.now();
    const u = new URL(url);
    const sig = u.searchParams.get("sig")!;
    const expires = Number(u.searchParams.get("expires"));
    const tampered = [
      url.replace(`sig=${sig}`, `sig=${sig.slice(0, -1)}${sig.endsWith("0") ? "1" : "0"}`),
      url.replace(`expires=${expires}`, `expires=${expires + 3600}`),
      url.replace(artifact!.id, `${artifact!.id.slice(0, -1)}${artifact!.id.endsWith("x") ? "y" : "x"}`),
    ];
    for (const t of tampered) {
      const r = await fetch(t);
      expect(r.status, t).toBe(401);
      // The URL takes no key: the answer speaks of the signature, not of an API key.
      expect(await r.json()).toEqual({ error: expect.stringMatching(/signature is not valid/), code: "UNAUTHORIZED" });
    }
    api().clock.now = expires * 1000;
    const expired = await fetch(url);
    api().clock.now = null;
    expect(expired.status).toBe(401);
    const reasons = (await api().platform.store.audit.listSince(since, { page: 1, size: 10 })).items.map(
      (a) => a.reason,
    );
    expect(reasons.sort()).toEqual(["bad_signature", "bad_signature", "bad_signature", "url_expired"]);

    const bare = await fetch(`${base}/api/artifacts/${artifact!.id}/download`);
    expect(bare.status).toBe(400);
    expect(((await bare.json()) as { details: unknown }).details).toEqual([
      { in: "query", field: "expires", message: "is missing: use the artifact's downloadUrl as given" },
      { in: "query", field: "sig", message: "is missing: use the artifact's downloadUrl as given" },
    ]);
  });

  it("refuses, audited, a genuine URL whose expiry is further off than the URL lifetime and the clock skew", async () => {
    const me = await account(api());
    const { id: executionId } = await completedExecution(api(), me, NOTE_YAML);
    const [artifact] = ArtifactList.parse(
      (await call(api(), "GET", `/api/v1/executions/${executionId}/artifacts`, { key: me.key })).json(),
    ).artifacts;
    const expires = Number(new URL(artifact!.downloadUrl, "http://x").searchParams.get("expires"));
    const lifetimeS = api().platform.config.WF_DOWNLOAD_URL_TTL_S;
    const download = (atS: number) => {
      api().clock.now = atS * 1000;
      return call(api(), "GET", artifact!.downloadUrl).finally(() => (api().clock.now = null));
    };
    // Seen from a clock the skew behind the issuer's, the URL lives lifetime + skew: accepted.
    const skewed = await download(expires - lifetimeS - CLOCK_SKEW_S);
    expect(skewed.statusCode).toBe(200);
    expect(skewed.body).toBe("a note");
    // A second more: no URL is issued for that long, so this one was not issued now.
    const tooFarAtS = expires - lifetimeS - CLOCK_SKEW_S - 1;
    const tooFar = await download(tooFarAtS);
    expect(tooFar.statusCode).toBe(401);
    expect(tooFar.json()).toEqual({ error: expect.any(String), code: "UNAUTHORIZED" });
    const tampered = await call(api(), "GET", artifact!.downloadUrl.replace("sig=", "sig=0"));
    expect(tampered.statusCode).toBe(401);
    expect(tooFar.body).toBe(tampered.body);
    // Audit records carry the edge's clock: the refusal is dated at the pinned time.
    const path = `/api/artifacts/${artifact!.id}/download`;
    const { items } = await api().platform.store.audit.listSince(tooFarAtS * 1000, { page: 1, size: 50 });
    const mine = items.filter((a) => a.path === path);
    expect(mine.map((a) => a.reason).sort()).toEqual(["bad_signature", "url_lifetime_exceeded"]);
    expect(mine.find((a) => a.reason === "url_lifetime_exceeded")).toMatchObject({
      at: tooFarAtS * 1000,
      keyId: null,
      method: "GET",
    });
  });
});
