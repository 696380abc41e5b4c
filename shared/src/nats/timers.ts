import type { JetStreamClient } from "@nats-io/jetstream";
import { headers } from "@nats-io/nats-core";
import { z } from "zod";
import type { Handled } from "./command-consumer";
import { subjects, toToken } from "./subjects";

/** What a timer does when due: publish one message (a command) with a dedup id. */
export const TimerMessage = z.object({
  dueAt: z.number(),
  fire: z.object({ subject: z.string(), payload: z.unknown(), msgId: z.string() }),
});
export type TimerMessage = z.infer<typeof TimerMessage>;

export interface TimerSpec extends TimerMessage {
  kind: string;
  id: string;
}

/**
 * Durable timers. This implementation suits every nats-server: the timer is a message on the
 * TIMER stream that the timer consumer `nak`s until it is due (servers from 2.12 could use
 * message schedules instead behind the same interface).
 */
export interface Timers {
  schedule(t: TimerSpec): Promise<void>;
}

export function jetStreamTimers(js: JetStreamClient, ns: string): Timers {
  const subj = subjects(ns);
  return {
    async schedule(t) {
      const body: TimerMessage = { dueAt: t.dueAt, fire: t.fire };
      await js.publish(subj.timer(toToken(t.kind), toToken(t.id)), JSON.stringify(body), {
        msgID: `timer:${t.kind}:${t.id}`,
      });
    },
  };
}

/**
 * The last stretch before a timer is due is waited out in memory: the server's redelivery of a
 * `nak`ed message comes a few hundred milliseconds late under load, so the timer asks to come
 * back this much early and then sleeps to the exact due time. A crash while it sleeps only
 * delays the timer to its ack-wait redelivery.
 */
const TIMER_HOLD_MS = 1_000;

/** A due timer fires (publishes its command); one not due yet asks to come back when it is. */
export async function fireTimer(js: JetStreamClient, timer: TimerMessage, now = Date.now()): Promise<Handled> {
  const { dueAt, fire } = timer;
  const left = dueAt - now;
  if (left > TIMER_HOLD_MS) return { retryInMs: left - TIMER_HOLD_MS / 2 };
  // A clock step backwards may leave a little more to wait: never fire before the due time.
  for (let rest = left; rest > 0; rest = dueAt - Date.now()) await new Promise((r) => setTimeout(r, rest));
  const h = headers();
  h.set("Wf-Timer-Due", String(dueAt));
  await js.publish(fire.subject, JSON.stringify(fire.payload), { msgID: fire.msgId, headers: h });
}
