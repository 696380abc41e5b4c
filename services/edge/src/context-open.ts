import { ArtifactFiles } from "@wf/shared/artifacts";
import type { Platform } from "@wf/shared/runtime";
import { AuditLog } from "./auth/audit-log";
import { LastUsed } from "./auth/last-used";
import type { EdgeContext } from "./context";
import { resolveSigningKey } from "./downloads/signing-key";
import { UrlSigner } from "./downloads/url-signer";
import { WindowCounters } from "./rate-limit/window-counters";

export interface EdgeOptions {
  /** Epoch ms; defaults to Date.now. */
  clock?: () => number;
}

/** Opens what the edge needs beyond the platform: artifact files, the signing key, the rate-limit bucket. */
export async function openEdgeContext(p: Platform, opts: EdgeOptions = {}): Promise<EdgeContext> {
  const ns = p.config.WF_NAMESPACE;
  const log = p.log.child({ component: "edge" });
  const [files, signingKey, counters] = await Promise.all([
    ArtifactFiles.open(p.nc, ns, p.store),
    resolveSigningKey(p.nc, ns, p.config.WF_URL_SIGNING_KEY),
    WindowCounters.open(p.nc, ns),
  ]);
  return {
    config: p.config,
    ns,
    store: p.store,
    js: p.js,
    log,
    files,
    signer: new UrlSigner(signingKey, p.config.WF_DOWNLOAD_URL_TTL_S),
    counters,
    audit: new AuditLog(p.store, p.js, ns, log),
    lastUsed: new LastUsed(p.store, log),
    clock: opts.clock ?? Date.now,
  };
}
