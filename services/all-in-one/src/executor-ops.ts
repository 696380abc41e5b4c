import { BroadcastChannel } from "node:worker_threads";
import { OpsAsk, PeerAsker, replyTo, type OpsSource } from "@wf/shared/ops";

/**
 * Between the process's ops listener and the executor thread: a channel by name, which reaches
 * the thread without holding its Worker (executor-thread-start.ts).
 */
const CHANNEL = "wf-executor-ops";

/** In the executor thread: answers the ops listener with `source()`, null while the executor starts. */
export function answerOps(source: () => OpsSource | null): void {
  const channel = new BroadcastChannel(CHANNEL);
  channel.onmessage = (event) => {
    const ask = OpsAsk.safeParse(event.data);
    if (ask.success) void replyTo(ask.data, source()).then((reply) => channel.postMessage(reply));
  };
}

/** In the main thread: the executor thread as a part of the process's ops listener. */
export function executorThreadSource(): OpsSource {
  const channel = new BroadcastChannel(CHANNEL);
  const asker = new PeerAsker();
  channel.onmessage = (event) => asker.receive(event.data);
  const send = (ask: OpsAsk) => channel.postMessage(ask);
  return { name: "executor thread", ready: () => asker.ready(send), metrics: () => asker.metrics(send) };
}
