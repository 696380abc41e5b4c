import { z } from "zod";
import type { MetricsJson } from "../metrics/metrics-json";
import type { OpsSource } from "./ops-source";
import { ReadyReport, STARTING, STOPPING } from "./ready-report";
import { isStopping } from "./stopping";

/**
 * How a process's ops listener asks the threads or worker processes that have no listener of
 * their own (the all-in-one executor thread, the edge's cluster workers) for their readiness or
 * metrics: an ask with an id, answered by a reply with the same id.
 */
export const OpsAsk = z.object({
  t: z.literal("wf-ops-ask"),
  id: z.number().int(),
  want: z.enum(["ready", "metrics"]),
});
export type OpsAsk = z.infer<typeof OpsAsk>;

/** One registry's metrics as `getMetricsAsJSON` gives them (a value JSON could not carry, NaN, arrives as null). */
const MetricsJsonSchema = z.array(
  z.looseObject({
    name: z.string(),
    help: z.string(),
    type: z.string(),
    aggregator: z.string(),
    values: z.array(
      z.looseObject({
        value: z
          .number()
          .nullable()
          .transform((v) => v ?? Number.NaN),
        labels: z.record(z.string(), z.union([z.string(), z.number()])),
      }),
    ),
  }),
);

export const OpsReply = z.object({
  t: z.literal("wf-ops-reply"),
  id: z.number().int(),
  ready: ReadyReport.optional(),
  metrics: z.array(MetricsJsonSchema).optional(),
  error: z.string().optional(),
});
export type OpsReply = z.infer<typeof OpsReply>;
/** A reply as it is sent: the metrics as the registry gave them. */
type OutgoingReply = Omit<OpsReply, "metrics"> & { metrics?: MetricsJson[] };

/** The reply to `ask` from `source`; null while the part is still starting. A part that is stopping is not ready. */
export async function replyTo(ask: OpsAsk, source: OpsSource | null): Promise<OutgoingReply> {
  const base = { t: "wf-ops-reply" as const, id: ask.id };
  try {
    if (ask.want === "ready")
      return { ...base, ready: isStopping() ? STOPPING : source ? await source.ready() : STARTING };
    return { ...base, metrics: source ? await source.metrics() : [] };
  } catch (err) {
    return { ...base, error: err instanceof Error ? err.message : String(err) };
  }
}

/**
 * A peer must answer within this: longer than its own checks may take (PlatformHealth), short of a probe's patience.
 */
const ASK_TIMEOUT_MS = 3_000;

/**
 * Asks peers and matches their replies to the asks by id. `receive` is given every message that
 * arrives on the channel (anything else is ignored).
 */
export class PeerAsker {
  private nextId = 1;
  private readonly waiting = new Map<number, (reply: OpsReply) => void>();

  receive(message: unknown): void {
    const reply = OpsReply.safeParse(message);
    if (reply.success) this.waiting.get(reply.data.id)?.(reply.data);
  }

  async ready(send: (ask: OpsAsk) => void): Promise<ReadyReport> {
    const reply = await this.ask("ready", send);
    if (!reply.ready) throw new Error(reply.error ?? "no report in the reply");
    return reply.ready;
  }

  async metrics(send: (ask: OpsAsk) => void): Promise<MetricsJson[]> {
    const reply = await this.ask("metrics", send);
    if (!reply.metrics) throw new Error(reply.error ?? "no metrics in the reply");
    return reply.metrics as unknown as MetricsJson[];
  }

  private ask(want: OpsAsk["want"], send: (ask: OpsAsk) => void): Promise<OpsReply> {
    const id = this.nextId++;
    return new Promise<OpsReply>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        reject(new Error(`no answer in ${ASK_TIMEOUT_MS / 1000} s`));
      }, ASK_TIMEOUT_MS);
      this.waiting.set(id, (reply) => {
        clearTimeout(timer);
        this.waiting.delete(id);
        resolve(reply);
      });
      try {
        send({ t: "wf-ops-ask", id, want });
      } catch (err) {
        clearTimeout(timer);
        this.waiting.delete(id);
        reject(err instanceof Error ? err : new Error(String(err)));
      }
    });
  }
}
