import type { JsMsg } from "@nats-io/jetstream";
import type { Logger } from "@wf/shared/log";
import type { Platform } from "@wf/shared/runtime";
import type { z } from "zod";

/**
 * Consumes a durable consumer's messages, each checked against `schema` (a malformed one is
 * terminated) and handled concurrently. A handler that throws has its message redelivered later,
 * with a growing delay: handlers must be idempotent, and are (derived ids, counted sources).
 */
export async function consumeEach<T>(
  p: Platform,
  log: Logger,
  opts: { stream: string; durable: string; schema: z.ZodType<T>; handle: (value: T) => Promise<void> },
): Promise<{ stop(): Promise<void> }> {
  const consumer = await p.js.consumers.get(opts.stream, opts.durable);
  const messages = await consumer.consume({ max_messages: 256 });
  const inflight = new Set<Promise<void>>();
  const handleOne = async (m: JsMsg): Promise<void> => {
    const parsed = opts.schema.safeParse(parseJson(m.string()));
    if (!parsed.success) {
      log.error("malformed message dropped", { subject: m.subject, issues: parsed.error.issues });
      m.term("malformed");
      return;
    }
    try {
      await opts.handle(parsed.data);
    } catch (err) {
      log.warn("message not handled; will be redelivered", { subject: m.subject, deliveries: m.info.deliveryCount, err });
      m.nak(Math.min(30_000, 1_000 * 2 ** Math.min(m.info.deliveryCount - 1, 5)));
      return;
    }
    // WF_REDELIVER_ONCE (tests): every message handled twice, to prove the handlers idempotent.
    if (p.config.WF_REDELIVER_ONCE && m.info.deliveryCount === 1) m.nak();
    else m.ack();
  };
  const loop = (async () => {
    for await (const m of messages) {
      const done = handleOne(m).finally(() => inflight.delete(done));
      inflight.add(done);
    }
  })();
  return {
    async stop() {
      await messages.close();
      await loop;
      await Promise.all(inflight);
    },
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
