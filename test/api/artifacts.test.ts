import { describe, expect, it } from "vitest";
import { ArtifactList, ArtifactView } from "@wf/shared/api";
import { ArtifactFiles } from "@wf/shared/artifacts";
import { waitFor } from "../support/runtime";
import { account, call, storeWorkflow, useApi, type Account, type ApiEnv } from "./support";

const api = useApi({ runtime: true });

const YAML = `
name: report
variables:
  title: { type: string, required: true }
steps:
  - name: build
    type: code
    language: bash
    code: |
      echo "{\\"title\\": \\"$WF_VAR_title\\"}"
`;

/** Runs the workflow through the API to COMPLETED, then attaches files to its build step. */
async function completedWithArtifacts(env: ApiEnv, me: Account, files: { path: string; content: Uint8Array }[]) {
  const w = await storeWorkflow(env, me.user.id, YAML);
  const { executionId } = (await call(env, "POST", `/api/v1/workflows/${w.id}/executions`, { key: me.key, body: { inputs: { title: "Q3" } } })).json();
  await waitFor(
    async () => (await call(env, "GET", `/api/v1/executions/${executionId}`, { key: me.key })).json().status === "COMPLETED",
    { timeoutMs: 20_000, what: "the execution to complete" },
  );
  // What the executor does with a code step's WF_ARTIFACTS_DIR (collection comes with the code-steps issue).
  const store = await ArtifactFiles.open(env.platform.nc, env.ns, env.platform.store);
  const saved = await store.save({ executionId, ownerId: me.user.id, stepName: "build" }, files);
  return { executionId, saved };
}

const text = (s: string) => new TextEncoder().encode(s);

describe("artifacts", () => {
  it("lists an execution's artifacts and one artifact's metadata with a signed downloadUrl", async () => {
    const me = await account(api());
    const { executionId, saved } = await completedWithArtifacts(api(), me, [
      { path: "out/report.csv", content: text("a,b\n1,2\n") },
      { path: "chart.bin", content: new Uint8Array([1, 2, 3]) },
    ]);
    const r = await call(api(), "GET", `/api/v1/executions/${executionId}/artifacts`, { key: me.key });
    expect(r.statusCode).toBe(200);
    const list = ArtifactList.parse(r.json());
    expect(list.total).toBe(2);
    expect(list.artifacts[0]).toEqual({
      id: saved[0]!.id,
      name: "report.csv",
      path: "out/report.csv",
      storageKey: saved[0]!.storageKey,
      downloadUrl: expect.stringMatching(new RegExp(`^/api/artifacts/${saved[0]!.id}/download\\?expires=\\d+&sig=[0-9a-f]{64}$`)),
      previewable: true,
      size: 8,
      contentType: "text/csv; charset=utf-8",
      stepName: "build",
      createdAt: expect.any(Number),
    });
    expect(list.artifacts[1]).toMatchObject({ name: "chart.bin", previewable: false });

    const one = await call(api(), "GET", `/api/v1/executions/${executionId}/artifacts/${saved[1]!.id}`, { key: me.key });
    expect(ArtifactView.parse(one.json())).toMatchObject({ id: saved[1]!.id, name: "chart.bin", size: 3 });

    const stranger = await account(api());
    expect((await call(api(), "GET", `/api/v1/executions/${executionId}/artifacts`, { key: stranger.key })).statusCode).toBe(404);
    expect((await call(api(), "GET", `/api/v1/executions/${executionId}/artifacts/no-such`, { key: me.key })).statusCode).toBe(404);
    const elsewhere = await completedWithArtifacts(api(), me, [{ path: "x.txt", content: text("x") }]);
    // An artifact of another execution is not found under this one.
    expect((await call(api(), "GET", `/api/v1/executions/${executionId}/artifacts/${elsewhere.saved[0]!.id}`, { key: me.key })).statusCode).toBe(404);
  });

  it("downloads through downloadUrl over HTTP, whole and by Range (206, 416); refuses a tampered or expired URL", async () => {
    const me = await account(api());
    const body = new Uint8Array(300_000).map((_, i) => i % 251);
    const { executionId } = await completedWithArtifacts(api(), me, [{ path: "data/blob one.bin", content: body }]);
    const [artifact] = ArtifactList.parse((await call(api(), "GET", `/api/v1/executions/${executionId}/artifacts`, { key: me.key })).json()).artifacts;
    const base = await api().app.listen({ port: 0, host: "127.0.0.1" });
    const url = `${base}${artifact!.downloadUrl}`;

    const whole = await fetch(url);
    expect(whole.status).toBe(200);
    expect(whole.headers.get("content-type")).toBe("application/octet-stream");
    expect(whole.headers.get("content-length")).toBe("300000");
    expect(whole.headers.get("content-disposition")).toBe(`attachment; filename="blob one.bin"; filename*=UTF-8''blob%20one.bin`);
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
    expect(await outside.json()).toEqual({ error: expect.any(String) });

    const since = Date.now();
    const u = new URL(url);
    const sig = u.searchParams.get("sig")!;
    const expires = Number(u.searchParams.get("expires"));
    const tampered = [
      url.replace(`sig=${sig}`, `sig=${sig.slice(0, -1)}${sig.endsWith("0") ? "1" : "0"}`),
      url.replace(`expires=${expires}`, `expires=${expires + 3600}`),
      url.replace(artifact!.id, `${artifact!.id.slice(0, -1)}x`),
    ];
    for (const t of tampered) {
      const r = await fetch(t);
      expect(r.status, t).toBe(401);
      expect(await r.json()).toEqual({ error: expect.any(String) });
    }
    api().clock.now = expires * 1000;
    const expired = await fetch(url);
    api().clock.now = null;
    expect(expired.status).toBe(401);
    const reasons = (await api().platform.store.audit.listSince(since, { page: 1, size: 10 })).items.map((a) => a.reason);
    expect(reasons.sort()).toEqual(["bad_signature", "bad_signature", "bad_signature", "url_expired"]);

    expect((await fetch(`${base}/api/artifacts/${artifact!.id}/download`)).status).toBe(400);
  });
});
