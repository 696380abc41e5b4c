import { jetstreamManager } from "@nats-io/jetstream";
import { Bucket } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/nats-core";
import { ConfigError } from "../../errors";
import { openKvBucket } from "../../nats/buckets";
import type { StreamPlacement } from "../../nats/placement";
import { StoredDefinitions } from "../../nats/stored-definitions";
import type { Store } from "../port";
import { AUDIT_RETENTION_MS } from "../records";
import { DirectReads } from "./direct-reads";
import { JetStreamPublisher } from "./jetstream-publisher";
import { PendingStarts } from "./pending-starts";
import type { KvBuckets } from "./kv-buckets";
import { KvExecutionRepo } from "./execution-repo";
import {
  KvApiKeyRepo,
  KvApprovalRepo,
  KvArtifactRepo,
  KvAuditRepo,
  KvChainRunsRepo,
  KvScheduleRepo,
  KvSecretRepo,
  KvWebhookRepo,
  KvWorkflowRepo,
} from "./repos";
import { KvUserRepo } from "./user-repo";

/**
 * The JetStream KV store: buckets `<namespace>_<type>` (records) and `<namespace>_<type>_idx`
 * (index keys), created on first open. The connection stays the caller's: `close` leaves it open.
 */
export async function openKvStore(
  nc: NatsConnection,
  namespace: string,
  placement: StreamPlacement,
  opts: Pick<KvBuckets, "markerPurgeMs" | "staleMarkerMs"> = {},
): Promise<Store> {
  if (!/^[A-Za-z0-9_-]+$/.test(namespace)) {
    throw new ConfigError(`store namespace "${namespace}" must match [A-Za-z0-9_-]+ (it names KV buckets)`);
  }
  const jsm = await jetstreamManager(nc);
  const publisher = new JetStreamPublisher(nc);
  const definitions = new StoredDefinitions(nc, namespace);
  const reads = new DirectReads(nc);
  // One value per key is all a record needs: CAS compares against the latest revision only.
  const open = async (type: string, maxAgeMs = 0): Promise<KvBuckets> => {
    const recordsBucket = `${namespace}_${type}`;
    const indexBucket = `${recordsBucket}_idx`;
    const spec = { history: 1, keeps: true, ...(maxAgeMs > 0 ? { ttlMs: maxAgeMs } : {}) };
    const [records, index] = await Promise.all([
      openKvBucket(nc, recordsBucket, spec, placement),
      openKvBucket(nc, indexBucket, spec, placement),
    ]);
    // nats.js found out whether the bucket allows direct gets as it opened it (no request more
    // here); one made elsewhere without them is read through nats.js.
    const direct = records instanceof Bucket && records.direct;
    return { jsm, publisher, records, recordsBucket, index, indexBucket, reads: direct ? reads : null, ...opts };
  };
  const [
    workflows,
    executions,
    approvals,
    artifacts,
    webhooks,
    users,
    userEmails,
    apiKeys,
    audit,
    secrets,
    chainRuns,
    schedules,
  ] = await Promise.all([
    open("workflows"),
    open("executions"),
    open("approvals"),
    open("artifacts"),
    open("webhooks"),
    open("users"),
    openKvBucket(nc, `${namespace}_user_emails`, { history: 1, keeps: true }, placement),
    open("api_keys"),
    // Audit records expire with the AUDIT stream's events; the record and its key age together.
    open("audit", AUDIT_RETENTION_MS),
    open("secrets"),
    open("chain_runs"),
    open("schedules"),
  ]).catch((err: unknown) => {
    publisher.close();
    reads.close();
    throw err;
  });
  const store = {
    kind: "kv" as const,
    workflows: new KvWorkflowRepo(workflows),
    executions: new KvExecutionRepo(executions, new PendingStarts(jsm, namespace, definitions), definitions),
    approvals: new KvApprovalRepo(approvals),
    artifacts: new KvArtifactRepo(artifacts),
    webhooks: new KvWebhookRepo(webhooks),
    users: new KvUserRepo(users, userEmails),
    apiKeys: new KvApiKeyRepo(apiKeys),
    audit: new KvAuditRepo(audit),
    secrets: new KvSecretRepo(secrets),
    chainRuns: new KvChainRunsRepo(chainRuns),
    schedules: new KvScheduleRepo(schedules),
  };
  return {
    ...store,
    close: async () => {
      // The watches behind getRecent and the ack and read subscriptions are this store's; the connection stays the
      // caller's.
      for (const repo of Object.values(store)) if (typeof repo === "object") repo.close();
      publisher.close();
      reads.close();
    },
  };
}
