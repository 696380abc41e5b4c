/**
 * The end-to-end benchmark's same-run floor: the service's durable writes and process layout, and
 * nothing else. Its trigger verifies the HMAC signature, makes its three writes at once (rate
 * counter, PENDING list entry, start command with msg id = execution id) and answers 202 once all
 * three are acknowledged. Writes go through the service's JetStreamPublisher, as the executor's do
 * (floor-executor.ts). Why a floor (docs/operations.md#benchmarks).
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { once } from "node:events";
import { Worker } from "node:worker_threads";
import { AckPolicy, jetstreamManager, RetentionPolicy, StorageType } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import { nanos } from "@nats-io/nats-core";
import Fastify from "fastify";
import { newId } from "@wf/shared/execution";
import { streamNames, subjects, connectNats } from "@wf/shared/nats";
import { JetStreamPublisher } from "@wf/shared/store";
import { JS_STEP_CODE } from "../workflows";
import { FLOOR_BUCKETS, FLOOR_CONSUMER, floorKvPut, floorListKey, type FloorStart } from "./floor-schema";

const url = process.env.NATS_URL!;
const ns = process.env.WF_NAMESPACE!;
const secret = process.env.FLOOR_SECRET!;
const OWNER = "floorowner";
const WORKFLOW = "floorworkflow";
const STEPS = ["s1", "s2", "s3"].map((name) => ({ name, code: JS_STEP_CODE }));

const nc = await connectNats(url, "floor-edge");
const publisher = new JetStreamPublisher(nc);
const jsm = await jetstreamManager(nc);
// The service's own stream names and subjects: the bench's completion watcher reads the floor's events as it reads the
// service's.
const streams = streamNames(ns);
const subj = subjects(ns);
const dedup = { storage: StorageType.File, duplicate_window: nanos(120_000) };
await jsm.streams.add({
  name: streams.cmd,
  subjects: [subj.execAll, subj.execStartAll],
  retention: RetentionPolicy.Workqueue,
  ...dedup,
});
await jsm.streams.add({
  name: streams.evt,
  subjects: [subj.eventFilter()],
  retention: RetentionPolicy.Limits,
  ...dedup,
});
await jsm.consumers.add(streams.cmd, {
  durable_name: FLOOR_CONSUMER,
  ack_policy: AckPolicy.Explicit,
  ack_wait: nanos(30_000),
  max_ack_pending: 64,
});
const kvm = new Kvm(nc);
const buckets = FLOOR_BUCKETS(ns);
await Promise.all(
  [buckets.executions, buckets.index, buckets.rates].map((bucket) => kvm.create(bucket, { history: 1 })),
);

const worker = new Worker(new URL("./floor-executor.ts", import.meta.url), { workerData: { url, ns } });
await once(worker, "message");

const counts = new Map<string, number>();
const app = Fastify({ logger: false, bodyLimit: 1024 * 1024 });
app.addContentTypeParser("application/json", { parseAs: "string" }, (_request, body, done) => done(null, body));
app.post<{ Params: { hook: string }; Body: string }>("/hooks/:hook/trigger", async (request, reply) => {
  const given = Buffer.from(String(request.headers["x-webhook-signature"] ?? ""));
  const expected = Buffer.from(`sha256=${createHmac("sha256", secret).update(request.body).digest("hex")}`);
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    return reply.code(401).send({ error: "bad signature" });
  const { hook } = request.params;
  const id = newId();
  const createdAt = Date.now();
  const start: FloorStart = {
    id,
    ownerId: OWNER,
    workflowId: WORKFLOW,
    createdAt,
    steps: STEPS,
    input: JSON.parse(request.body) as unknown,
  };
  const count = (counts.get(hook) ?? 0) + 1;
  counts.set(hook, count);
  await Promise.all([
    floorKvPut(publisher, buckets.rates, `${hook}.${Math.floor(createdAt / 60_000)}`, String(count)),
    floorKvPut(publisher, buckets.index, floorListKey(start), "PENDING"),
    publisher.publish(subj.execStart(id), JSON.stringify(start), { msgID: id }),
  ]);
  return reply.code(202).send({ executionId: id, status: "PENDING" });
});
const address = await app.listen({ port: 0, host: "127.0.0.1" });
process.stdout.write(`floor on ${address}\nfloor ready\n`);
