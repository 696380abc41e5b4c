import type { Config } from "../config/index";
import { ConfigError } from "../errors/index";
import { createLogger } from "../log/index";
import type { OpsSource } from "./ops-source";
import { startOpsServer, type OpsServer } from "./ops-server";

export interface OpsListener {
  /** Where it listens; null with `WF_OPS_PORT=off`. */
  readonly server: OpsServer | null;
  /** The parts it answers for, once the process has started them: until then `/readyz` says it is starting. */
  attach(sources: OpsSource[]): void;
  close(): Promise<void>;
}

/**
 * Opens the process's ops listener on WF_OPS_HOST:WF_OPS_PORT, first thing at start-up, so that
 * `/healthz` answers while the rest starts (a start that waits on NATS is alive, not ready).
 * A port that is taken stops start-up, naming the variable.
 */
export async function openOps(
  config: Pick<Config, "WF_OPS_HOST" | "WF_OPS_PORT" | "LOG_LEVEL">,
  service: string,
): Promise<OpsListener> {
  let sources: readonly OpsSource[] | null = null;
  if (config.WF_OPS_PORT === null) return { server: null, attach: () => undefined, close: async () => undefined };
  const log = createLogger(config.LOG_LEVEL, { service });
  const server = await startOpsServer({
    host: config.WF_OPS_HOST,
    port: config.WF_OPS_PORT,
    log,
    sources: () => sources,
  }).catch((err: unknown) => {
    const code = (err as NodeJS.ErrnoException).code ?? String(err);
    throw new ConfigError(
      `the ops listener cannot listen on ${config.WF_OPS_HOST}:${config.WF_OPS_PORT} (${code}): give each process on this host its own WF_OPS_PORT (0 picks a free one), or set WF_OPS_PORT=off`,
    );
  });
  return {
    server,
    attach(parts) {
      sources = parts;
    },
    close: () => server.close(),
  };
}
