import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/nats-core";
import type { Config } from "../config/index";
import { ConfigError } from "../errors/wf-error";
import { createLogger, type Logger } from "../log/index";
import { connectNats } from "../nats/connect";
import type { NatsTarget } from "../nats/credentials";
import { inboxPrefix } from "../nats/permissions";
import { streamPlacement, type StreamPlacement } from "../nats/placement";
import { clusterCasWarning } from "../nats/server-version";
import { ensureStreams } from "../nats/streams";
import { whileStarting } from "../nats/while-starting";
import { jetStreamTimers, serverHasSchedules, type TimerMode, type Timers } from "../nats/timers";
import { openConfiguredStore } from "../store/index";
import type { Store } from "../store/port";
import { resolveNats } from "./resolve-nats";

/** What every service needs: one NATS connection, the streams, the store, timers, a logger. */
export interface Platform {
  config: Config;
  /** The server connected to, with its credentials: another thread of this process connects with them. */
  natsTarget: NatsTarget;
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  store: Store;
  /** Replicas and placement of every stream and bucket this process creates or reconciles. */
  placement: StreamPlacement;
  timers: Timers;
  log: Logger;
  /**
   * Another connection to the same server, with this service's credentials and inbox prefix, drained when the
   * platform closes: for traffic that should not queue behind `nc`'s. The server reads each connection's messages in
   * order, one at a time.
   */
  connectAgain(purpose: string): Promise<NatsConnection>;
  close(): Promise<void>;
}

export async function openPlatform(config: Config, name: string): Promise<Platform> {
  const log = createLogger(config.LOG_LEVEL, { service: name });
  const nats = await resolveNats(config, log);
  const connectAs = (connection: string): Promise<NatsConnection> =>
    connectNats(nats.target.url, connection, { auth: nats.target.auth, inboxPrefix: inboxPrefix(name) });
  const nc = await connectAs(`wf-${name}`);
  const others: NatsConnection[] = [];
  if (nc.info?.auth_required !== true) {
    log.warn(
      "the nats-server at NATS_URL takes clients without credentials: anything that reaches it can read every record and start or cancel any execution. " +
        "Give it users (docs/operations.md) and set NATS_USER and NATS_PASSWORD",
    );
  }
  const clusterWarning = clusterCasWarning(nc.info);
  if (clusterWarning !== null) log.warn(clusterWarning);
  const jsm = await whileStarting(() => jetstreamManager(nc));
  const js = jetstream(nc);
  const placement = streamPlacement(config, nc);
  const timerMode = await openStreams(jsm, config, placement, serverHasSchedules(nc.info?.version), log);
  const store = await whileStarting(() => openConfiguredStore(config, nc));
  log.info("platform ready", {
    nats: nats.target.url,
    store: store.kind,
    namespace: config.WF_NAMESPACE,
    replicas: placement.replicas,
    timers: timerMode,
    compression: placement.compression ?? `none: nats-server ${nc.info?.version ?? "?"} has no compression (2.10+)`,
  });
  return {
    config,
    natsTarget: nats.target,
    nc,
    js,
    jsm,
    store,
    placement,
    timers: jetStreamTimers(js, config.WF_NAMESPACE, timerMode),
    log,
    async connectAgain(purpose) {
      const other = await connectAs(`wf-${name}-${purpose}`);
      others.push(other);
      return other;
    },
    async close() {
      await store.close();
      await Promise.all([nc, ...others].map((c) => c.drain().catch(() => c.close())));
      if (nats.child) {
        const exited = new Promise((r) => nats.child!.once("exit", r));
        nats.child.kill("SIGTERM");
        await exited;
      }
    },
  };
}

/**
 * The service's streams, with the timers held as message schedules where the server has them. A
 * cluster that refuses them (a member older than 2.12, mid-upgrade) keeps the `nak` timers.
 */
async function openStreams(
  jsm: JetStreamManager,
  config: Config,
  placement: StreamPlacement,
  schedules: boolean,
  log: Logger,
): Promise<TimerMode> {
  const opts = { eventsMaxAgeMs: config.WF_EVENTS_MAX_AGE_H * 3_600_000, placement };
  if (schedules) {
    try {
      await whileStarting(() => ensureStreams(jsm, config.WF_NAMESPACE, { ...opts, scheduledTimers: true }));
      return "schedules";
    } catch (err) {
      if (err instanceof ConfigError) throw err;
      log.warn("the TIMER stream cannot hold message schedules: timers are redelivered until due", { err });
    }
  }
  await whileStarting(() => ensureStreams(jsm, config.WF_NAMESPACE, opts));
  return "nak";
}
