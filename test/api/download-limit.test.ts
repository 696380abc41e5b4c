import { get, type ClientRequest, type IncomingMessage } from "node:http";
import { describe, expect, it, onTestFinished } from "vitest";
import { ArtifactView } from "@wf/shared/api";
import { ArtifactFiles } from "@wf/shared/artifacts";
import { newId } from "@wf/shared/execution";
import { useConsole, type ConsoleEnv } from "../console/support";
import { waitFor } from "../support/runtime";
import { account, call, SIMPLE_YAML, storedExecution, storeWorkflow, type Account } from "./support";

const PER_OWNER = 3;
/** Larger than what the loopback socket's buffers take: a download whose client reads nothing stays in progress. */
const FILE_BYTES = 16 * 1024 * 1024;

const env = useConsole({ runtime: false, env: { WF_ARTIFACT_DOWNLOADS: String(PER_OWNER) } });

/** A download whose client reads nothing past the headers: in progress until closed (at the end of the test). */
interface Held {
  status: number;
  close(): void;
}

function download(e: ConsoleEnv, url: string): Promise<Held & { body: Promise<string> }> {
  return new Promise((resolve, reject) => {
    const req: ClientRequest = get(`${e.base}${url}`, (res: IncomingMessage) => {
      const close = () => {
        req.destroy();
      };
      onTestFinished(close);
      if (res.statusCode === 200) {
        res.pause();
        resolve({ status: 200, close, body: Promise.resolve("") });
        return;
      }
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      resolve({
        status: res.statusCode ?? 0,
        close,
        body: new Promise((done) => res.on("end", () => done(Buffer.concat(chunks).toString()))),
      });
    });
    req.on("error", reject);
  });
}

/** An artifact of `owner`'s execution, as its step stored it; its signed downloadUrl, as the API gives it. */
async function artifactUrl(e: ConsoleEnv, owner: Account): Promise<string> {
  const workflow = await storeWorkflow(e, owner.user.id, SIMPLE_YAML);
  const executionId = newId();
  await e.platform.store.executions.create(
    storedExecution({ id: executionId, workflowId: workflow.id, ownerId: owner.user.id }),
  );
  const files = await ArtifactFiles.open(e.platform.nc, e.ns, e.platform.placement, e.platform.store);
  const content = new Uint8Array(FILE_BYTES).map((_, i) => i % 251);
  const [record] = await files.save({ executionId, ownerId: owner.user.id, stepName: "build" }, [
    { path: "big.bin", content },
  ]);
  const res = await call(e, "GET", `/api/v1/executions/${executionId}/artifacts/${record!.id}`, { key: owner.key });
  expect(res.statusCode).toBe(200);
  return ArtifactView.parse(res.json()).downloadUrl;
}

describe("artifact downloads per owner", () => {
  it("refuses an owner's download past the limit with 429 DOWNLOADS_LIMIT, not another owner's, and an ended one frees a place", async () => {
    const e = env();
    const [a, b] = await Promise.all([account(e), account(e)]);
    const [urlA, urlB] = [await artifactUrl(e, a), await artifactUrl(e, b)];
    // One signed URL, fetched again and again by whoever holds it: nothing but the owner's share bounds it.
    const held: Held[] = [];
    for (let i = 0; i < PER_OWNER; i++) held.push(await download(e, urlA));
    expect(held.map((h) => h.status)).toEqual([200, 200, 200]);

    const refused = await download(e, urlA);
    expect(refused.status).toBe(429);
    expect(JSON.parse(await refused.body)).toMatchObject({
      code: "DOWNLOADS_LIMIT",
      error: expect.stringContaining("3 downloads of this owner's artifacts are in progress"),
      openDownloads: PER_OWNER,
      limit: PER_OWNER,
    });
    expect((await download(e, urlB)).status).toBe(200);

    held[0]!.close();
    const next = await waitFor(
      async () => {
        const d = await download(e, urlA);
        if (d.status === 200) return d;
        d.close();
        return undefined;
      },
      { what: "a place freed by the closed download" },
    );
    expect(next.status).toBe(200);
    expect((await download(e, urlA)).status).toBe(429);
  });
});
