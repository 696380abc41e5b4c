import { ArtifactFiles } from "@wf/shared/artifacts";
import { LaneBacklog, StoredDefinitions } from "@wf/shared/nats";
import type { Platform } from "@wf/shared/runtime";
import { JetStreamPublisher } from "@wf/shared/store";
import { AuditLog } from "./auth/audit-log";
import { LastUsed } from "./auth/last-used";
import { LoginThrottle } from "./console/login-throttle";
import { openStreams } from "./console/open-streams";
import { openDownloads } from "./downloads/open-downloads";
import { PasswordChecks } from "./console/password-checks";
import { SessionStore } from "./console/sessions";
import type { EdgeContext } from "./context";
import { resolveSigningKey } from "./downloads/signing-key";
import { UrlSigner } from "./downloads/url-signer";
import { WindowCounters } from "@wf/shared/rate-limit";
import { ReplayGuard } from "./webhooks/replay-guard";
import { openWebhookSecretBox } from "./webhooks/secret-box";
import { SignatureFailures } from "./webhooks/signature-failures";
import { WebhookStats } from "./webhooks/stats";

export interface EdgeOptions {
  /** Epoch ms; defaults to Date.now. */
  clock?: () => number;
}

/**
 * Opens what the edge needs beyond the platform: artifact files, the signing key, the rate-limit
 * bucket, the console sessions and the webhooks' secret key, stats and replay ids.
 */
export async function openEdgeContext(p: Platform, opts: EdgeOptions = {}): Promise<EdgeContext> {
  const ns = p.config.WF_NAMESPACE;
  const log = p.log.child({ component: "edge" });
  // The keys first: a process given another key than its peers stops before anything is opened.
  const signingKey = await resolveSigningKey(p);
  const secretBox = await openWebhookSecretBox(p);
  const publisher = new JetStreamPublisher(p.nc);
  const [files, counters, sessions, webhookStats, replayGuard, definitions] = await Promise.all([
    ArtifactFiles.open(p.nc, ns, p.placement, p.store),
    WindowCounters.open(p.nc, ns, p.placement, publisher),
    SessionStore.open(p.nc, ns, p.placement, p.config.WF_SESSION_TTL_S),
    WebhookStats.open(p.nc, ns, p.placement, publisher, log),
    ReplayGuard.open(p.nc, ns, p.placement),
    StoredDefinitions.open(p.nc, ns, p.placement, log, p.config.WF_EXECUTION_RETENTION),
  ]).catch((err: unknown) => {
    publisher.close();
    throw err;
  });
  return {
    config: p.config,
    ns,
    store: p.store,
    js: p.js,
    publisher,
    definitions,
    lanes: new LaneBacklog(),
    log,
    files,
    signer: new UrlSigner(signingKey, p.config.WF_DOWNLOAD_URL_TTL_S),
    counters,
    audit: new AuditLog(
      p.store,
      p.js,
      ns,
      log,
      { perSourcePerMinute: p.config.WF_AUDIT_PER_IP_PER_MINUTE, perMinute: p.config.WF_AUDIT_PER_MINUTE },
      opts.clock ?? Date.now,
    ),
    lastUsed: new LastUsed(p.store, log),
    sessions,
    loginThrottle: new LoginThrottle({
      perAccount: p.config.WF_LOGIN_FAILURES_PER_ACCOUNT,
      perAddress: p.config.WF_LOGIN_FAILURES_PER_ADDRESS,
      windowMs: p.config.WF_LOGIN_THROTTLE_WINDOW_S * 1000,
    }),
    passwordChecks: new PasswordChecks(p.config.WF_PASSWORD_HASH_CONCURRENCY, p.config.WF_PASSWORD_HASH_QUEUE),
    openStreams: openStreams(p.config.WF_CONSOLE_EVENT_STREAMS),
    openDownloads: openDownloads(p.config.WF_ARTIFACT_DOWNLOADS),
    secretBox,
    nc: p.nc,
    webhookStats,
    replayGuard,
    signatureFailures: new SignatureFailures(p.config.WF_WEBHOOK_SIGNATURE_FAILURES_PER_MINUTE),
    clock: opts.clock ?? Date.now,
    closing: new AbortController(),
  };
}
