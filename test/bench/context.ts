import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/nats-core";
import { startExecution } from "@wf/shared/client";
import { sharedDefinition } from "@wf/shared/execution";
import { connectNats, ONE_REPLICA, StoredDefinitions } from "@wf/shared/nats";
import { JetStreamPublisher } from "@wf/shared/store";
import type { InProcessRuntime } from "../support/runtime";
import { definitionOf } from "../support/runtime";
import { CompletionWatcher } from "./completions";

/** The benchmark's client side: its own connection, as an API edge or a `wf run` would have. */
export interface Client {
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  /**
   * What the edge starts executions through: nats.js's own publish makes an Error (its stack
   * captured) for every request it ends, which the service's CPU figure would count.
   */
  publisher: JetStreamPublisher;
  close(): Promise<void>;
}

export async function openClient(url: string): Promise<Client> {
  const nc = await connectNats(url, "wf-bench-client");
  const publisher = new JetStreamPublisher(nc);
  const close = async (): Promise<void> => {
    publisher.close();
    await nc.close();
  };
  return { nc, js: jetstream(nc), jsm: await jetstreamManager(nc), publisher, close };
}

/** A runtime under test and the client's view of its namespace. */
export interface Target {
  client: Client;
  rt: InProcessRuntime;
  ns: string;
  watcher: CompletionWatcher;
  /** The NATS server's monitoring endpoint, where it serves one: messages per workflow are counted there. */
  monitorUrl: string | undefined;
}

export async function openTarget(client: Client, rt: InProcessRuntime, monitorUrl?: string): Promise<Target> {
  const watcher = await CompletionWatcher.open(client.nc, rt.ns);
  return { client, rt, ns: rt.ns, watcher, monitorUrl };
}

/**
 * Publishes a start command for an inline workflow (as the API does); resolves once JetStream acked it. Its definition
 * is shared (frozen), as the edge's reads of a workflow are, and stored once: its commands name it by reference.
 */
export function starter(t: Target, yaml: string): (executionId: string) => Promise<string> {
  const parsed = definitionOf(yaml);
  const { name } = parsed;
  const definition = sharedDefinition(parsed, "bench");
  const workflow = { id: `wf-${name}`, name, ownerId: "bench", version: null, definition };
  // As the edge opens it: the bucket kept as the runtime's retention says.
  const definitions = new StoredDefinitions(t.client.nc, t.ns, {
    writer: { placement: ONE_REPLICA, retentionMs: t.rt.platform.config.WF_EXECUTION_RETENTION },
  });
  return (executionId) =>
    startExecution(
      t.client.publisher,
      t.ns,
      { workflow, inputs: {}, triggerSource: "open_api", executionId },
      { definitions },
    );
}

/** Messages ever written to a stream: with history 1, a KV stream's last sequence counts its writes. */
export async function lastSeq(jsm: JetStreamManager, stream: string): Promise<number> {
  return (await streamState(jsm, stream)).last_seq;
}

/** A stream's last sequence and the bytes it keeps. */
export async function streamState(jsm: JetStreamManager, stream: string): Promise<{ last_seq: number; bytes: number }> {
  const { state } = await jsm.streams.info(stream);
  return { last_seq: state.last_seq, bytes: state.bytes };
}
