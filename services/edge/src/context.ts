import type { JetStreamClient } from "@nats-io/jetstream";
import type { ArtifactFiles } from "@wf/shared/artifacts";
import type { Config } from "@wf/shared/config";
import type { Logger } from "@wf/shared/log";
import type { Store } from "@wf/shared/store";
import type { AuditLog } from "./auth/audit-log";
import type { LastUsed } from "./auth/last-used";
import type { SessionStore } from "./console/sessions";
import type { UrlSigner } from "./downloads/url-signer";
import type { WindowCounters } from "./rate-limit/window-counters";
import type { ReplayGuard } from "./webhooks/replay-guard";
import type { SecretBox } from "./webhooks/secret-box";
import type { WebhookStats } from "./webhooks/stats";

/** What the routes and hooks of one edge process share. */
export interface EdgeContext {
  config: Config;
  ns: string;
  store: Store;
  js: JetStreamClient;
  log: Logger;
  files: ArtifactFiles;
  signer: UrlSigner;
  counters: WindowCounters;
  audit: AuditLog;
  lastUsed: LastUsed;
  sessions: SessionStore;
  secretBox: SecretBox;
  webhookStats: WebhookStats;
  replayGuard: ReplayGuard;
  /** Epoch ms; tests pin it to put requests in one rate-limit window. */
  clock: () => number;
}
