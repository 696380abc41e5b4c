import type { JetStreamClient, JsMsg } from "@nats-io/jetstream";
import { headers } from "@nats-io/nats-core";
import { z } from "zod";
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

/** Handles one delivery of a timer message: fire when due, otherwise come back when it is. */
export async function handleTimerMessage(js: JetStreamClient, m: JsMsg, now = Date.now()): Promise<void> {
  const parsed = TimerMessage.safeParse(safeJson(m.string()));
  if (!parsed.success) {
    m.term("malformed timer");
    return;
  }
  const { dueAt, fire } = parsed.data;
  const left = dueAt - now;
  if (left > TIMER_HOLD_MS) {
    m.nak(left - TIMER_HOLD_MS / 2);
    return;
  }
  // A clock step backwards may leave a little more to wait: never fire before the due time.
  for (let rest = left; rest > 0; rest = dueAt - Date.now()) await new Promise((r) => setTimeout(r, rest));
  const h = headers();
  h.set("Wf-Timer-Due", String(dueAt));
  await js.publish(fire.subject, JSON.stringify(fire.payload), { msgID: fire.msgId, headers: h });
  m.ack();
}

function safeJson(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return undefined;
  }
}
