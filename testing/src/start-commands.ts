import { jetstreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/nats-core";
import type { CommandPublisher } from "@wf/shared/client";
import { ensureStreams, ONE_REPLICA, queuedCommand, streamNames, subjects } from "@wf/shared/nats";
import { JetStreamPublisher } from "@wf/shared/store";

/**
 * Start commands of a test's namespace `ns`, published to its real command stream, which is
 * created on the first publish (tests that publish none make no streams); `queued` says whether
 * an execution's start command is in the stream; `cleanup` deletes the namespace's streams if
 * they were made.
 */
export function startCommandsIn(
  nc: NatsConnection,
  ns: string,
): { publisher: CommandPublisher; queued(executionId: string): Promise<boolean>; cleanup(): Promise<void> } {
  let ready: Promise<JetStreamPublisher> | undefined;
  const open = async (): Promise<JetStreamPublisher> => {
    await ensureStreams(await jetstreamManager(nc), ns, { eventsMaxAgeMs: 3_600_000, placement: ONE_REPLICA });
    return new JetStreamPublisher(nc);
  };
  return {
    publisher: {
      async publish(subject, data, opts) {
        ready ??= open();
        return (await ready).publish(subject, data, opts);
      },
    },
    async queued(executionId) {
      if (ready === undefined) return false;
      return (await queuedCommand(await jetstreamManager(nc), ns, subjects(ns).execStart(executionId))) !== null;
    },
    async cleanup() {
      if (ready === undefined) return;
      (await ready).close();
      const jsm = await jetstreamManager(nc);
      await Promise.all(Object.values(streamNames(ns)).map((name) => jsm.streams.delete(name)));
    },
  };
}
