import { get, type ClientRequest, type IncomingMessage } from "node:http";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { jetstreamManager } from "@nats-io/jetstream";
import { describe, expect, it, onTestFinished } from "vitest";
import { ArtifactView } from "@wf/shared/api";
import { ArtifactFiles } from "@wf/shared/artifacts";
import { newId } from "@wf/shared/execution";
import { useConsole, type ConsoleEnv } from "../console/support";
import { waitFor } from "../support/runtime";
import { account, call, SIMPLE_YAML, storedExecution, storeWorkflow, type Account } from "./support";

/** Downloads held open at once, their clients reading nothing past the first bytes. */
const DOWNLOADS = 8;
/** Larger than what the loopback sockets' buffers take of a download whose client does not read (about 2-4 MiB). */
const FILE_BYTES = 8 * 1024 * 1024;
/**
 * What the edge may hold per download in progress: a few of the object store's 128 KiB chunks (about 0.5 MiB was
 * measured, the client's side in this process included). Before, each held what the sockets had not taken of its
 * file: 8 such downloads of an 8 MiB file held 50 MiB.
 */
const HELD_PER_DOWNLOAD = 1024 * 1024;

const env = useConsole({ runtime: false, env: { WF_ARTIFACT_DOWNLOADS: String(DOWNLOADS) } });

/**
 * The bytes of live array buffers (the chunks read from NATS are), garbage collected first, whether or not node was
 * started with --expose-gc. Twice: V8 frees the buffers a collection found dead on another thread, done at the latest
 * when the next collection starts (after one, 20 downloads held 11 MiB, or up to 57 MiB). The flag is set only while
 * the context that hands out `gc` is made (test files share this process).
 */
function liveArrayBuffers(): number {
  const exposed = typeof (globalThis as { gc?: unknown }).gc === "function";
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as () => void;
  if (!exposed) setFlagsFromString("--no-expose-gc");
  gc();
  gc();
  return process.memoryUsage().arrayBuffers;
}

/** A download whose client has read its first bytes and then stopped reading; `rest` reads it to the end. */
interface Held {
  first: () => Buffer | null;
  rest: () => Promise<Buffer>;
}

function download(e: ConsoleEnv, url: string): Promise<Held> {
  return new Promise((resolve, reject) => {
    const req: ClientRequest = get(`${e.base}${url}`, (res: IncomingMessage) => {
      onTestFinished(() => {
        req.destroy();
      });
      expect(res.statusCode).toBe(200);
      let first: Buffer | null = null;
      res.once("readable", () => {
        first = res.read() as Buffer;
      });
      resolve({
        first: () => first,
        rest: async () => {
          const parts = [first!];
          for await (const part of res) parts.push(part as Buffer);
          return Buffer.concat(parts);
        },
      });
    });
    req.on("error", reject);
  });
}

/** An 8 MiB artifact of `owner`'s execution, as its step stored it; its signed downloadUrl, as the API gives it. */
async function artifactUrl(e: ConsoleEnv, owner: Account, content: Uint8Array): Promise<string> {
  const workflow = await storeWorkflow(e, owner.user.id, SIMPLE_YAML);
  const executionId = newId();
  await e.platform.store.executions.create(
    storedExecution({ id: executionId, workflowId: workflow.id, ownerId: owner.user.id }),
  );
  const files = await ArtifactFiles.open(e.platform.nc, e.ns, e.platform.placement, e.platform.store);
  const [record] = await files.save({ executionId, ownerId: owner.user.id, stepName: "build" }, [
    { path: "big.bin", content },
  ]);
  const res = await call(e, "GET", `/api/v1/executions/${executionId}/artifacts/${record!.id}`, { key: owner.key });
  expect(res.statusCode).toBe(200);
  return ArtifactView.parse(res.json()).downloadUrl;
}

describe("artifact downloads' memory", () => {
  it("holds a few chunks per download in progress, however much of its file its client has not read", async () => {
    const e = env();
    const owner = await account(e);
    const content = new Uint8Array(FILE_BYTES).map((_, i) => i % 251);
    const url = await artifactUrl(e, owner, content);
    const before = liveArrayBuffers();

    const held: Held[] = [];
    for (let i = 0; i < DOWNLOADS; i++) held.push(await download(e, url));
    await waitFor(() => held.every((h) => h.first() !== null), { what: "every download's first bytes" });
    // The store has sent the edge all it asked for: no consumer of the artifacts' stream has messages left to deliver
    // (a reader that takes the chunks as NATS pushes them has the whole file by then).
    const jsm = await jetstreamManager(e.platform.nc);
    await waitFor(
      async () => (await jsm.consumers.list(`OBJ_${e.ns}_artifacts`).next()).every((c) => c.num_pending === 0),
      { what: "the artifacts' consumers delivered" },
    );
    const heldBytes = liveArrayBuffers() - before;
    expect(heldBytes, `${(heldBytes / 2 ** 20).toFixed(1)} MiB held`).toBeLessThan(DOWNLOADS * HELD_PER_DOWNLOAD);

    // Read on, the downloads are whole.
    for (const h of held) expect((await h.rest()).equals(content)).toBe(true);
  });
});
