import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NatsConnection } from "@nats-io/nats-core";
import { connectNats } from "../nats/connect";
import { ONE_REPLICA } from "../nats/placement";
import { openStore } from "../store/index";
import type { Store } from "../store/port";
import { startNatsServer, type NatsServerHandle } from "@wf/testing";
import { ArtifactFiles } from "./artifact-files";
import { contentTypeOf, isPreviewable } from "./content-type";

let server: NatsServerHandle;
let nc: NatsConnection;
let store: Store;

beforeAll(async () => {
  server = await startNatsServer();
  nc = await connectNats(server.url, "artifacts-test");
  store = await openStore({ kind: "kv", nc, namespace: "art" });
});
afterAll(async () => {
  await store?.close();
  await nc?.close();
  await server?.stop();
});

describe("artifact files", () => {
  it("stores files and their records, listed by execution, bytes read back intact", async () => {
    const files = await ArtifactFiles.open(nc, "art", ONE_REPLICA, store);
    const big = new Uint8Array(300_000).map((_, i) => i % 251);
    const saved = await files.save({ executionId: "e1", ownerId: "o1", stepName: "report" }, [
      { path: "report.html", content: new TextEncoder().encode("<h1>hi</h1>") },
      { path: "data/blob.bin", content: big },
    ]);
    expect(saved.map((r) => [r.name, r.path, r.size, r.previewable])).toEqual([
      ["report.html", "report.html", 11, true],
      ["blob.bin", "data/blob.bin", 300_000, false],
    ]);
    const listed = await store.artifacts.listByExecution("e1");
    expect(listed.map((r) => r.id)).toEqual(saved.map((r) => r.id));
    expect(await files.read(saved[1]!.storageKey)).toEqual(big);
  });

  it("knows content types and what can be previewed", () => {
    expect(contentTypeOf("chart.PNG")).toBe("image/png");
    expect(contentTypeOf("notes.txt")).toBe("text/plain; charset=utf-8");
    expect(contentTypeOf("paper.pdf")).toBe("application/pdf");
    expect(contentTypeOf("archive.xyz")).toBe("application/octet-stream");
    for (const t of ["image/png", "text/plain; charset=utf-8", "application/pdf", "text/html; charset=utf-8"]) {
      expect(isPreviewable(t), t).toBe(true);
    }
    expect(isPreviewable("application/octet-stream")).toBe(false);
  });
});
