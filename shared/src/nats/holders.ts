import type { NatsConnection, Subscription } from "@nats-io/nats-core";
import { subjects } from "./subjects";

/** How long a holder has to answer before it is taken for dead. */
const ASK_MS = 2_000;

/**
 * Answers other executors asking whether this process still runs an execution: "1" when it
 * does. A redelivered command normally means its holder died, but a cluster that moves a
 * consumer's leader (a nats-server restarting) may redeliver under a live holder too.
 */
export function answerHolds(
  nc: NatsConnection,
  ns: string,
  actorId: string,
  holds: (executionId: string) => boolean,
): Subscription {
  return nc.subscribe(subjects(ns).holds(actorId), {
    callback: (_err, msg) => {
      if (msg.reply) msg.respond(holds(msg.string()) ? "1" : "0");
    },
  });
}

/**
 * Whether `actorId` says it still runs `executionId`. No answer in time (the process is gone,
 * or too busy to say) counts as no: the lease had already expired, so the execution is taken over.
 */
export async function holderAlive(
  nc: NatsConnection,
  ns: string,
  actorId: string,
  executionId: string,
): Promise<boolean> {
  try {
    const answer = await nc.request(subjects(ns).holds(actorId), executionId, { timeout: ASK_MS });
    return answer.string() === "1";
  } catch {
    return false;
  }
}
