import { get } from "node:http";
import { round } from "./stats";

/** Messages nats-server received (publishes, acks, requests) and sent (acks, replies, deliveries). */
export interface NatsMessages {
  received: number;
  sent: number;
}

/** How long a reading of the monitoring endpoint may take. */
const VARZ_TIMEOUT_MS = 5_000;

/** nats-server's message counters since it started, from its monitoring endpoint; null without it. */
export async function natsMessages(monitorUrl: string | undefined): Promise<NatsMessages | null> {
  if (monitorUrl === undefined) return null;
  const varz = JSON.parse(await getText(`${monitorUrl}/varz`)) as { in_msgs: number; out_msgs: number };
  return { received: varz.in_msgs, sent: varz.out_msgs };
}

/**
 * A GET through node:http, not fetch: fetch's HTTP parser is WebAssembly, which V8 compiled again with its optimizing
 * tier after a few readings, 90-110 ms of a core's CPU on a 2-vCPU guest, and that landed inside the sustained round
 * the reading opens, counted as the service's CPU (the bench runs the service in its own process).
 */
function getText(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = get(url, { timeout: VARZ_TIMEOUT_MS }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        reject(new Error(`GET ${url}: HTTP ${res.statusCode}`));
        return;
      }
      res.setEncoding("utf8");
      let text = "";
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => resolve(text));
      res.on("error", reject);
    });
    req.on("timeout", () => req.destroy(new Error(`GET ${url}: no answer within ${VARZ_TIMEOUT_MS} ms`)));
    req.on("error", reject);
  });
}

/** The counters' growth between two readings, per `n` (workflows); null when either reading or `n` is missing. */
export function messagesPer(a: NatsMessages | null, b: NatsMessages | null, n: number): NatsMessages | null {
  if (!a || !b || n <= 0) return null;
  const per = (x: number, y: number) => round((y - x) / n, 2);
  return { received: per(a.received, b.received), sent: per(a.sent, b.sent) };
}
