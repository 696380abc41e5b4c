import type { Config } from "../config/index";
import type { Logger } from "../log/index";
import { natsTargetFromEnv } from "../nats/credentials";
import { embeddedNats, type EmbeddedNats } from "./embedded-nats";

export type ResolvedNats = EmbeddedNats;

type NatsConfig = Pick<
  Config,
  "NATS_URL" | "NATS_USER" | "NATS_PASSWORD" | "NATS_TOKEN" | "WF_DATA_DIR" | "NATS_SERVER_BIN"
>;

/**
 * The server a service connects to: NATS_URL with the credentials of the environment; else the
 * embedded default of WF_DATA_DIR (`preferredPort` exists for tests).
 */
export async function resolveNats(
  config: NatsConfig,
  log: Logger,
  opts: { preferredPort?: number } = {},
): Promise<ResolvedNats> {
  const target = natsTargetFromEnv(config);
  if (target !== undefined) return { target, child: null };
  return embeddedNats(config.WF_DATA_DIR, log, { binary: config.NATS_SERVER_BIN, ...opts });
}
