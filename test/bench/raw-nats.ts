import { RetentionPolicy, StorageType, type JetStreamClient, type JetStreamManager } from "@nats-io/jetstream";
import { Kvm, type KV } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/nats-core";
import { nanos } from "@nats-io/nats-core";
import { runBounded } from "./bounded";
import { round } from "./stats";

/**
 * What the service is built from, measured bare on the same server and machine: a stream like
 * EVT (file storage, 2-minute duplicate window, so msg-id dedupe costs the same) and a KV bucket
 * like the executions bucket (history 1).
 */
export class RawNats {
  /** Each measurement uses fresh msg ids and keys: a repeated id would be dropped as a duplicate. */
  private measurement = 0;

  private constructor(
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly kv: KV,
    private readonly bucket: string,
    private readonly stream: string,
    private readonly prefix: string,
  ) {}

  static async open(nc: NatsConnection, js: JetStreamClient, jsm: JetStreamManager, ns: string): Promise<RawNats> {
    const stream = `${ns}_BENCHRAW`;
    const prefix = `${ns}.benchraw`;
    await jsm.streams.add({
      name: stream,
      subjects: [`${prefix}.>`],
      retention: RetentionPolicy.Limits,
      storage: StorageType.File,
      duplicate_window: nanos(120_000),
    });
    const bucket = `${ns}_benchcas`;
    const kv = await new Kvm(nc).create(bucket, { history: 1 });
    return new RawNats(js, jsm, kv, bucket, stream, prefix);
  }

  /** (a) Asynchronous publishes of small messages, `window` awaiting their ack at once. */
  async publishRate(n: number, window: number): Promise<{ messages: number; seconds: number; perSec: number }> {
    const body = JSON.stringify({ type: "step_completed", pad: "x".repeat(160) });
    const r = ++this.measurement;
    const t0 = performance.now();
    await runBounded(n, window, (i) => this.js.publish(`${this.prefix}.pub.${i % 64}`, body, { msgID: `p${r}.${i}` }));
    const seconds = (performance.now() - t0) / 1000;
    return { messages: n, seconds: round(seconds, 3), perSec: Math.round(n / seconds) };
  }

  /** (b) KV compare-and-set updates: each key updated in sequence, `keys` keys at once. */
  async casRate(
    keys: number,
    perKey: number,
  ): Promise<{ updates: number; keys: number; seconds: number; perSec: number }> {
    const value = "x".repeat(256);
    const r = ++this.measurement;
    const key = (k: number) => `cas${r}_${k}`;
    const revisions = await Promise.all(Array.from({ length: keys }, (_, k) => this.kv.create(key(k), value)));
    const t0 = performance.now();
    await Promise.all(
      revisions.map(async (first, k) => {
        let rev = first;
        for (let i = 0; i < perKey; i++) rev = await this.kv.update(key(k), value, rev);
      }),
    );
    const seconds = (performance.now() - t0) / 1000;
    const updates = keys * perKey;
    return { updates, keys, seconds: round(seconds, 3), perSec: Math.round(updates / seconds) };
  }

  /**
   * (c) The floor of a run of `steps` steps with one durable write per step, in the committer's
   * order: write the snapshot by CAS (the first one a create), publish the step's event with a
   * msg id, and await that ack before the next write. Returns milliseconds.
   */
  async durableStepsFloor(run: string, steps: number, snapshotBytes: number): Promise<number> {
    const snapshot = "x".repeat(snapshotBytes);
    const event = JSON.stringify({ type: "step_completed", executionId: run, pad: "x".repeat(200) });
    const publish = (i: number) => this.js.publish(`${this.prefix}.floor.${run}`, event, { msgID: `${run}.${i}` });
    const t0 = performance.now();
    let rev = await this.kv.create(`floor${run}`, snapshot);
    let ack = publish(0);
    for (let i = 1; i < steps; i++) {
      await ack;
      rev = await this.kv.update(`floor${run}`, snapshot, rev);
      ack = publish(i);
    }
    await ack;
    return performance.now() - t0;
  }

  async close(): Promise<void> {
    await this.jsm.streams.delete(this.stream).catch(() => undefined);
    await this.jsm.streams.delete(`KV_${this.bucket}`).catch(() => undefined);
  }
}
