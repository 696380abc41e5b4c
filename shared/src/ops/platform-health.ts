import type { JetStreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/nats-core";
import { recordConsumerInfo } from "../metrics/consumer-metrics";
import { STORE_TYPES } from "../nats/permissions";
import { isNotFound } from "../nats/streams";
import { streamNames } from "../nats/subjects";
import { OK, reportOf, type ReadyReport } from "./ready-report";

/**
 * How long the server's answers are reused: probes and scrapes, however frequent, cost one round
 * of info requests per this at most.
 */
const CACHE_MS = 1_000;
/** An info request the server does not answer within this fails its check. */
const CHECK_TIMEOUT_MS = 2_000;

/** What the checks need of a Platform. */
export interface HealthTarget {
  nc: NatsConnection;
  jsm: JetStreamManager;
  config: { WF_NAMESPACE: string };
  store: { kind: "kv" | "mongodb" };
}

/**
 * The readiness of one platform (connection, streams, buckets) and of the durable consumers its
 * services pull from, whose gauges it refreshes on the way. The connection's state is followed
 * as the client reports it, so a lost server shows at once; what only the server knows (the
 * streams, buckets and consumers still exist) is asked at most once per CACHE_MS.
 */
export class PlatformHealth {
  private connected = true;
  private readonly consumers = new Map<string, { stream: string; durable: string }>();
  /** The streams and buckets that must exist: the namespace's four streams, and the store's buckets on KV. */
  private readonly streams: string[];
  private remote: { doneAt: number; checks: Promise<Record<string, string>> } | null = null;

  constructor(private readonly p: HealthTarget) {
    const ns = p.config.WF_NAMESPACE;
    const buckets =
      p.store.kind === "kv"
        ? [...STORE_TYPES.flatMap((t) => [`${ns}_${t}`, `${ns}_${t}_idx`]), `${ns}_user_emails`]
        : [];
    this.streams = [...Object.values(streamNames(ns)), ...buckets.map((b) => `KV_${b}`)];
    void this.follow();
  }

  /** A durable consumer a service of this platform pulls from: the platform is ready only while it exists. */
  watchConsumer(stream: string, durable: string): void {
    this.consumers.set(`${stream}/${durable}`, { stream, durable });
  }

  async report(): Promise<ReadyReport> {
    if (this.p.nc.isClosed()) return reportOf({ nats: "the connection is closed" });
    if (!this.connected) return reportOf({ nats: "disconnected, reconnecting" });
    return reportOf({ nats: OK, ...(await this.remoteChecks()) });
  }

  /** Brings the consumers' gauges up to date; while NATS is unreachable they keep their last values. */
  async refresh(): Promise<void> {
    if (this.connected && !this.p.nc.isClosed()) await this.remoteChecks();
  }

  private async follow(): Promise<void> {
    for await (const s of this.p.nc.status()) {
      if (s.type === "disconnect") this.connected = false;
      if (s.type === "reconnect") {
        this.connected = true;
        // What was learnt before the server went away says nothing about the one now.
        this.remote = null;
      }
    }
  }

  private remoteChecks(): Promise<Record<string, string>> {
    if (this.remote && Date.now() - this.remote.doneAt < CACHE_MS) return this.remote.checks;
    const remote = { doneAt: Number.POSITIVE_INFINITY, checks: this.askServer() };
    void remote.checks.finally(() => (remote.doneAt = Date.now()));
    this.remote = remote;
    return remote.checks;
  }

  private async askServer(): Promise<Record<string, string>> {
    const [streams, consumers] = await Promise.all([
      verdict(
        this.streams.map((name) =>
          bounded(this.p.jsm.streams.info(name)).then(
            () => null,
            (err: unknown) => problem(name, err),
          ),
        ),
      ),
      verdict(
        [...this.consumers.values()].map(({ stream, durable }) =>
          bounded(this.p.jsm.consumers.info(stream, durable)).then(
            (info) => {
              recordConsumerInfo(stream, durable, info);
              return null;
            },
            (err: unknown) => problem(`consumer ${durable} on ${stream}`, err),
          ),
        ),
      ),
    ]);
    return this.consumers.size ? { streams, consumers } : { streams };
  }
}

async function verdict(problems: Promise<string | null>[]): Promise<string> {
  const found = (await Promise.all(problems)).filter((p) => p !== null);
  return found.length ? found.join("; ") : OK;
}

function problem(what: string, err: unknown): string {
  return isNotFound(err) ? `${what} is missing` : `${what}: ${err instanceof Error ? err.message : String(err)}`;
}

function bounded<T>(request: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer in ${CHECK_TIMEOUT_MS / 1000} s`)), CHECK_TIMEOUT_MS);
  });
  return Promise.race([request, late]).finally(() => clearTimeout(timer));
}

const healths = new WeakMap<HealthTarget, PlatformHealth>();

/** The health of a platform: one per platform, made on first use. */
export function platformHealth(p: HealthTarget): PlatformHealth {
  let health = healths.get(p);
  if (!health) {
    health = new PlatformHealth(p);
    healths.set(p, health);
  }
  return health;
}
