import type { JetStreamClient } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/nats-core";
import type { ArtifactFiles } from "@wf/shared/artifacts";
import type { Config } from "@wf/shared/config";
import type { Logger } from "@wf/shared/log";
import type { LaneBacklog, StoredDefinitions } from "@wf/shared/nats";
import type { SecretBox } from "@wf/shared/secrets";
import type { JetStreamPublisher, Store } from "@wf/shared/store";
import type { AuditLog } from "./auth/audit-log";
import type { LastUsed } from "./auth/last-used";
import type { LoginThrottle } from "./console/login-throttle";
import type { PasswordChecks } from "./console/password-checks";
import type { SessionStore } from "./console/sessions";
import type { UrlSigner } from "./downloads/url-signer";
import type { Places } from "./places";
import type { WindowCounters } from "@wf/shared/rate-limit";
import type { ReplayGuard } from "./webhooks/replay-guard";
import type { SignatureFailures } from "./webhooks/signature-failures";
import type { WebhookStats } from "./webhooks/stats";

/** What the routes and hooks of one edge process share. */
export interface EdgeContext {
  config: Config;
  ns: string;
  store: Store;
  js: JetStreamClient;
  /** For the hot publishes (start commands, rate counters): a third of nats.js's CPU per publish. */
  publisher: JetStreamPublisher;
  /** Where the definitions of stored workflows are kept once, their start commands naming them. */
  definitions: StoredDefinitions;
  /** The start lanes' backlogs, which the executors report: new starts go to their owner's less busy lane. */
  lanes: LaneBacklog;
  log: Logger;
  files: ArtifactFiles;
  signer: UrlSigner;
  counters: WindowCounters;
  audit: AuditLog;
  lastUsed: LastUsed;
  sessions: SessionStore;
  /** Failed console logins of this process, per email and address and per address. */
  loginThrottle: LoginThrottle;
  /** The scrypt jobs of this process, bounded. */
  passwordChecks: PasswordChecks;
  /** Each user's console event streams open on this process, bounded. */
  openStreams: Places;
  /** The downloads of each owner's artifacts this process serves, bounded. */
  openDownloads: Places;
  secretBox: SecretBox;
  /**
   * The service's NATS connection: the console's secret routes ask the executors over it (they alone hold the secrets
   * key).
   */
  nc: NatsConnection;
  webhookStats: WebhookStats;
  replayGuard: ReplayGuard;
  /** Wrong webhook signatures of this process, per webhook and client address. */
  signatureFailures: SignatureFailures;
  /** Epoch ms; tests pin it to put requests in one rate-limit window. */
  clock: () => number;
  /** Aborted as the edge closes: what holds a request open (an event stream) ends, or the close would wait for it. */
  closing: AbortController;
}
