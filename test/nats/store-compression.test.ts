import { randomBytes } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { jetstream } from "@nats-io/jetstream";
import { loadConfig } from "@wf/shared/config";
import { newId } from "@wf/shared/execution";
import { openObjectBucket, serverHasCompression, streamNames } from "@wf/shared/nats";
import { openPlatform, type Platform } from "@wf/shared/runtime";
import { startNatsServer, type NatsServerHandle } from "@wf/testing";
import { streamBytesOnDisk } from "../support/stream-disk";

/**
 * WF_STORE_COMPRESSION on the server under test (NATS_SERVER_BIN): from 2.10 on, the streams and buckets that keep
 * data are compressed and the work queues are not; before, every stream is kept as written and the service starts all
 * the same.
 */
let server: NatsServerHandle;
const opened: Platform[] = [];

beforeAll(async () => {
  server = await startNatsServer();
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((p) => p.close()));
});
afterAll(async () => {
  await server?.stop();
});

async function platform(ns: string, compression?: "s2" | "none"): Promise<Platform> {
  const p = await openPlatform(
    loadConfig({
      NATS_URL: server.url,
      WF_NAMESPACE: ns,
      LOG_LEVEL: "error",
      ...(compression ? { WF_STORE_COMPRESSION: compression } : {}),
    }),
    "compression-test",
  );
  opened.push(p);
  return p;
}

/** Bytes a stream's files take in this file's server. */
const onDisk = (stream: string) => streamBytesOnDisk(server, stream);

/** Each stream's `compression` as the server reports it ("none" where it reports none). */
async function compressionOf(p: Platform, names: string[]): Promise<Record<string, string>> {
  const infos = await Promise.all(names.map((name) => p.jsm.streams.info(name)));
  return Object.fromEntries(names.map((name, i) => [name, infos[i]!.config.compression ?? "none"]));
}

describe("store compression", () => {
  it("compresses what keeps data by default, never a work queue, where the server can", async () => {
    const ns = `z${newId().slice(-10).toLowerCase()}`;
    const p = await platform(ns);
    const names = streamNames(ns);
    const kept = serverHasCompression(server.version) ? "s2" : "none";
    expect(
      await compressionOf(p, [
        names.evt,
        names.audit,
        names.cmd,
        names.timer,
        `KV_${ns}_executions`,
        `KV_${ns}_executions_idx`,
        `KV_${ns}_user_emails`,
      ]),
    ).toEqual({
      [names.evt]: kept,
      [names.audit]: kept,
      [names.cmd]: "none",
      [names.timer]: "none",
      [`KV_${ns}_executions`]: kept,
      [`KV_${ns}_executions_idx`]: kept,
      [`KV_${ns}_user_emails`]: kept,
    });
  });

  it("brings existing streams to `none` and back at the next start", async () => {
    const ns = `z${newId().slice(-10).toLowerCase()}`;
    const names = streamNames(ns);
    const watched = [names.evt, `KV_${ns}_workflows`];
    const kept = serverHasCompression(server.version) ? "s2" : "none";
    await (await platform(ns, "none")).close();
    opened.length = 0;
    const again = await platform(ns, "s2");
    expect(await compressionOf(again, watched)).toEqual({ [names.evt]: kept, [`KV_${ns}_workflows`]: kept });
    await again.close();
    opened.length = 0;
    expect(await compressionOf(await platform(ns, "none"), watched)).toEqual({
      [names.evt]: "none",
      [`KV_${ns}_workflows`]: "none",
    });
  });

  it("keeps a full block of events in a fraction of its bytes on disk", async () => {
    const ns = `z${newId().slice(-10).toLowerCase()}`;
    const p = await platform(ns);
    const js = jetstream(p.nc);
    // Events as the executor writes them, past one 8 MB block: the server compresses a block once the next begins.
    const event = (i: number) =>
      JSON.stringify({
        type: "step_completed",
        executionId: `01KBQ${(1e9 + i).toString(36).toUpperCase()}ABCDEFG`,
        workflowId: "01KBQ0000000000000000WFLOW",
        ownerId: "01KBQ0000000000000000OWNER",
        at: Date.now(),
        id: `01KBQ${(1e9 + i).toString(36).toUpperCase()}ABCDEFG.${i % 9}`,
        step: "second",
        data: { status: "COMPLETED", output: { prev: i }, duration: 1, attempts: 1 },
      });
    const subject = (i: number) => `${ns}.evt.o1.w1.x${i % 1000}.step_completed`;
    let written = 0;
    for (let i = 0; written < 12 * 1024 * 1024; i += 256) {
      const batch = Array.from({ length: 256 }, (_, k) => event(i + k));
      written += batch.reduce((n, e) => n + e.length, 0);
      await Promise.all(batch.map((e, k) => js.publish(subject(i + k), e)));
    }
    const stored = (await p.jsm.streams.info(streamNames(ns).evt)).state.bytes;
    if (!serverHasCompression(server.version)) {
      expect(onDisk(streamNames(ns).evt)).toBeGreaterThanOrEqual(stored);
      return;
    }
    // Compressed asynchronously once the block is sealed: read until it has been, within a bound.
    await expect.poll(() => onDisk(streamNames(ns).evt), { timeout: 10_000, interval: 100 }).toBeLessThan(stored * 0.6);
  });

  it("keeps a text artifact in a fraction of its bytes, and random bytes in no more than theirs", async () => {
    const ns = `z${newId().slice(-10).toLowerCase()}`;
    const p = await platform(ns);
    const rows = Array.from({ length: 300_000 }, (_, i) => `{"row":${i},"status":"ok","score":${(i * 7) % 100}}\n`);
    const files = { text: Buffer.from(rows.join("")), random: randomBytes(12 * 1024 * 1024) };
    const sizes: Record<string, { stored: number; disk: () => number }> = {};
    for (const [kind, bytes] of Object.entries(files)) {
      const bucket = await openObjectBucket(p.nc, `${ns}_${kind}`, p.placement);
      await bucket.putBlob({ name: `report.${kind}` }, bytes);
      const stream = `OBJ_${ns}_${kind}`;
      sizes[kind] = { stored: (await p.jsm.streams.info(stream)).state.bytes, disk: () => onDisk(stream) };
    }
    expect(files.text.length).toBeGreaterThan(8 * 1024 * 1024);
    if (!serverHasCompression(server.version)) {
      expect(sizes.text!.disk()).toBeGreaterThanOrEqual(sizes.text!.stored);
      return;
    }
    await expect
      .poll(() => sizes.text!.disk(), { timeout: 10_000, interval: 100 })
      .toBeLessThan(sizes.text!.stored * 0.6);
    expect(sizes.random!.disk()).toBeLessThan(sizes.random!.stored * 1.02);
  });
});
