import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/nats-core";
import type { Config } from "../config/index";
import { createLogger, type Logger } from "../log/index";
import { connectNats } from "../nats/connect";
import type { NatsTarget } from "../nats/credentials";
import { inboxPrefix } from "../nats/permissions";
import { ensureStreams } from "../nats/streams";
import { jetStreamTimers, type Timers } from "../nats/timers";
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
  timers: Timers;
  log: Logger;
  close(): Promise<void>;
}

export async function openPlatform(config: Config, name: string): Promise<Platform> {
  const log = createLogger(config.LOG_LEVEL, { service: name });
  const nats = await resolveNats(config, log);
  const nc = await connectNats(nats.target.url, `wf-${name}`, { auth: nats.target.auth, inboxPrefix: inboxPrefix(name) });
  if (nc.info?.auth_required !== true) {
    log.warn(
      "the nats-server at NATS_URL takes clients without credentials: anything that reaches it can read every record and start or cancel any execution. " +
        "Give it users (docs/operations.md) and set NATS_USER and NATS_PASSWORD",
    );
  }
  const jsm = await jetstreamManager(nc);
  const js = jetstream(nc);
  await ensureStreams(jsm, config.WF_NAMESPACE, { eventsMaxAgeMs: config.WF_EVENTS_MAX_AGE_H * 3_600_000 });
  const store = await openConfiguredStore(config, nc);
  log.info("platform ready", { nats: nats.target.url, store: store.kind, namespace: config.WF_NAMESPACE });
  return {
    config,
    natsTarget: nats.target,
    nc,
    js,
    jsm,
    store,
    timers: jetStreamTimers(js, config.WF_NAMESPACE),
    log,
    async close() {
      await store.close();
      await nc.drain().catch(() => nc.close());
      if (nats.child) {
        const exited = new Promise((r) => nats.child!.once("exit", r));
        nats.child.kill("SIGTERM");
        await exited;
      }
    },
  };
}
