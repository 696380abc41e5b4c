import type { JetStreamClient } from "@nats-io/jetstream";
import { headers } from "@nats-io/nats-core";
import { z } from "zod";
import type { Handled } from "./command-consumer";
import { serverAtLeast } from "./server-version";
import { subjects, toToken } from "./subjects";
import { retryTransient } from "./transient";

/** What a timer does when due: publish one message (a command) with a dedup id. */
export const TimerMessage = z.object({
  dueAt: z.number(),
  fire: z.object({ subject: z.string(), payload: z.unknown(), msgId: z.string() }),
});
export type TimerMessage = z.infer<typeof TimerMessage>;

export interface TimerSpec extends TimerMessage {
  kind: string;
  id: string;
  /**
   * Its owner's lane (start-lanes.ts): `laneOf` the execution it is about, or `ownerLane` of the workflow's owner. One
   * owner's timers due together then wait in their lane, not ahead of another owner's.
   */
  lane: number;
}

/**
 * Durable timers: a message on the TIMER stream (`<ns>.timer.<lane>.<kind>.<id>`) that the timer consumer
 * of its lane fires when due, put there one of two ways: `schedules` (nats-server 2.12+), a message schedule
 * (`<ns>.timersched.<kind>.<id>`) that the server publishes as the timer when due, re-arming replacing
 * it; or `nak` (every server), published at once and `nak`ed until due
 * (docs/architecture.md#parked-executions).
 */
export interface Timers {
  readonly mode: TimerMode;
  schedule(t: TimerSpec): Promise<void>;
}

export type TimerMode = "schedules" | "nak";

/** Timers due sooner than this are published at once: the consumer holds them the rest of the way. */
const SCHEDULE_AFTER_MS = 2_000;

export function jetStreamTimers(js: JetStreamClient, ns: string, mode: TimerMode): Timers {
  const subj = subjects(ns);
  return {
    mode,
    schedule(t) {
      const body = JSON.stringify({ dueAt: t.dueAt, fire: t.fire } satisfies TimerMessage);
      const [kind, id] = [toToken(t.kind), toToken(t.id)];
      const subject = subj.timer(t.lane, kind, id);
      // Decided once: a publish tried again goes the same way, under the same message id, so one
      // that timed out but landed is not stored twice.
      if (mode === "nak" || t.dueAt - Date.now() < SCHEDULE_AFTER_MS) {
        return retryTransient(() => js.publish(subject, body, { msgID: `timer:${t.kind}:${t.id}` })).then(
          () => undefined,
        );
      }
      const h = headers();
      // Released a little early, as redelivered timers are: the consumer holds the rest in memory,
      // since the server's schedules fire up to ~100 ms late when many fall due at once.
      h.set("Nats-Schedule", `@at ${new Date(t.dueAt - TIMER_HOLD_MS / 2).toISOString()}`);
      h.set("Nats-Schedule-Target", subject);
      return retryTransient(() =>
        js.publish(subj.timerSchedule(kind, id), body, { msgID: `timersched:${t.kind}:${t.id}`, headers: h }),
      ).then(() => undefined);
    },
  };
}

/** Whether the server connected to has message schedules (2.12+). */
export function serverHasSchedules(version: string | undefined): boolean {
  return serverAtLeast(version, 2, 12);
}

/**
 * The last stretch before a timer is due is waited out in memory: the server's redelivery of a
 * `nak`ed message comes a few hundred milliseconds late under load, so the timer asks to come
 * back this much early and then sleeps to the exact due time. A crash while it sleeps only
 * delays the timer to its ack-wait redelivery.
 */
const TIMER_HOLD_MS = 1_000;

/** The header of a fired timer's command that carries the timer's due time (ms since the epoch). */
export const TIMER_DUE_HEADER = "Wf-Timer-Due";

/** A due timer fires (publishes its command); one not due yet asks to come back when it is. */
export async function fireTimer(js: JetStreamClient, timer: TimerMessage, now = Date.now()): Promise<Handled> {
  const { dueAt, fire } = timer;
  const left = dueAt - now;
  if (left > TIMER_HOLD_MS) return { retryInMs: left - TIMER_HOLD_MS / 2 };
  // A clock step backwards may leave a little more to wait: never fire before the due time.
  for (let rest = left; rest > 0; rest = dueAt - Date.now()) await new Promise((r) => setTimeout(r, rest));
  const h = headers();
  h.set(TIMER_DUE_HEADER, String(dueAt));
  await js.publish(fire.subject, JSON.stringify(fire.payload), { msgID: fire.msgId, headers: h });
}
