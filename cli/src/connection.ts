import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/nats-core";
import { loadConfig, type Config } from "@wf/shared/config";
import { ConfigError } from "@wf/shared/errors";
import {
  connectNats,
  ensureStreams,
  isNotFound,
  natsTargetFromEnv,
  streamNames,
  streamPlacement,
  type NatsTarget,
} from "@wf/shared/nats";
import { embeddedNatsFiles, recordedNats } from "@wf/shared/runtime";
import { UsageError } from "./usage";

export interface ServiceConnection {
  config: Config;
  url: string;
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  close(): Promise<void>;
}

/**
 * Connects to the service's NATS as a client only, found as the service finds it: NATS_URL with
 * the environment's credentials, else the server `npm start` runs for WF_DATA_DIR, with the
 * credentials it keeps there. Unlike the service, the CLI starts no nats-server: none means the
 * service is not running, and the user is told so.
 */
export async function connectToService(env: NodeJS.ProcessEnv = process.env): Promise<ServiceConnection> {
  let config: Config;
  let target: NatsTarget | undefined;
  try {
    config = loadConfig(env);
    target = natsTargetFromEnv(config) ?? (await recordedNats(config.WF_DATA_DIR));
  } catch (err) {
    if (err instanceof ConfigError) throw new UsageError(err.message);
    throw err;
  }
  const start =
    "Start the service (`npm start` in the repository, with the same WF_DATA_DIR), or set NATS_URL to the NATS server it uses (and NATS_USER and NATS_PASSWORD, or NATS_TOKEN).";
  if (target === undefined)
    throw new UsageError(
      `NATS_URL is not set, and no nats-server was started for ${embeddedNatsFiles(config.WF_DATA_DIR).dir} (WF_DATA_DIR).\n${start}`,
    );
  const { url } = target;
  let nc: NatsConnection;
  try {
    nc = await connectNats(url, "wf-cli", { auth: target.auth });
  } catch (err) {
    throw new UsageError(`cannot reach NATS at ${url} (${(err as Error).message}).\n${start}`);
  }
  let jsm: JetStreamManager;
  try {
    jsm = await ensureServiceStreams(nc, config);
  } catch (err) {
    await nc.close();
    throw err;
  }
  return {
    config,
    url,
    nc,
    js: jetstream(nc),
    jsm,
    async close() {
      await nc.drain().catch(() => nc.close());
    },
  };
}

/**
 * Creates the streams when this namespace has none yet, as the service would at start: a start
 * command then waits durably for an executor, and a tail can begin before the service does.
 * Existing streams are left as they are, so the CLI's environment never reconfigures them. Returns the manager.
 */
async function ensureServiceStreams(nc: NatsConnection, config: Config): Promise<JetStreamManager> {
  const ns = config.WF_NAMESPACE;
  let jsm: JetStreamManager;
  try {
    jsm = await jetstreamManager(nc);
  } catch (err) {
    throw new UsageError(
      `the NATS server does not offer JetStream (${(err as Error).message}); the service needs \`nats-server -js\``,
    );
  }
  try {
    await jsm.streams.info(streamNames(ns).evt);
    return jsm;
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
  await ensureStreams(jsm, ns, {
    eventsMaxAgeMs: config.WF_EVENTS_MAX_AGE_H * 3_600_000,
    placement: streamPlacement(config, nc),
  });
  console.error(
    `wf: created the streams of namespace \`${ns}\`: the service has not run with WF_NAMESPACE=${ns} on this NATS yet`,
  );
  return jsm;
}
