/**
 * The floor's executor, a worker thread as the service's is: up to 64 start commands at once, each
 * workflow's steps run one after another on the runners with only the durable writes the contract
 * asks for (the snapshot created at the end, JavaScript steps being pure and quick; its events with
 * a msg id once written; the list entry moved once), the command acknowledged last.
 * Writes go through the service's JetStreamPublisher, the cheapest acknowledged publish this client has.
 */
import { parentPort, workerData } from "node:worker_threads";
import { jetstream, type JsMsg, type PubAck } from "@nats-io/jetstream";
import { streamNames, subjects, connectNats } from "@wf/shared/nats";
import { JetStreamPublisher } from "@wf/shared/store";
import { FloorRunners } from "./floor-runners";
import { FLOOR_BUCKETS, FLOOR_CONSUMER, floorKvPut, floorListKey, type FloorStart } from "./floor-schema";

const { url, ns } = workerData as { url: string; ns: string };
const nc = await connectNats(url, "floor-executor");
const js = jetstream(nc);
const publisher = new JetStreamPublisher(nc);
const buckets = FLOOR_BUCKETS(ns);
const subj = subjects(ns);
const runners = new FloorRunners();

interface FloorEvent {
  type: string;
  executionId: string;
  step?: string;
  at: number;
  data: Record<string, unknown>;
}

async function execute(m: JsMsg): Promise<void> {
  const start = JSON.parse(m.string()) as FloorStart;
  const snap = {
    ...start,
    status: "RUNNING",
    steps: {} as Record<string, { status: string; input: unknown; output: unknown }>,
    output: null as unknown,
    outbox: [] as FloorEvent[],
  };
  let eventSeq = 0;
  const event = (type: string, step?: string, data: Record<string, unknown> = {}): FloorEvent => ({
    type,
    executionId: start.id,
    ...(step ? { step } : {}),
    at: Date.now(),
    data,
  });
  const publishOutbox = (): Promise<PubAck>[] =>
    snap.outbox.map((e) =>
      publisher.publish(subj.event(start.ownerId, start.workflowId, start.id, e.type), JSON.stringify(e), {
        msgID: `${start.id}.${++eventSeq}`,
      }),
    );

  let prev: unknown = 0;
  const outbox: FloorEvent[] = [event("exec_started")];
  for (const step of start.steps) {
    const input = { prev };
    prev = await runners.run(`${start.ownerId}.${start.workflowId}`, step.code, input);
    snap.steps[step.name] = { status: "COMPLETED", input, output: prev };
    outbox.push(event("step_started", step.name), event("step_completed", step.name, { output: prev }));
  }
  snap.status = "COMPLETED";
  snap.output = prev;
  snap.outbox = [...outbox, event("exec_completed", undefined, { status: "COMPLETED", output: prev })];
  await floorKvPut(publisher, buckets.executions, start.id, JSON.stringify(snap), 0);
  await Promise.all([...publishOutbox(), floorKvPut(publisher, buckets.index, floorListKey(start), "COMPLETED")]);
  m.ack();
}

const consumer = await js.consumers.get(streamNames(ns).cmd, FLOOR_CONSUMER);
const messages = await consumer.consume({ max_messages: 64 });
parentPort!.postMessage("ready");
for await (const m of messages) {
  execute(m).catch((err: unknown) => {
    process.stderr.write(`floor: execution failed: ${String(err)}\n`);
    m.nak();
  });
}
runners.close();
