import { jetstreamManager } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/nats-core";
import { ConfigError } from "../../errors";
import type { Store } from "../port";
import { AUDIT_RETENTION_MS } from "../records";
import type { KvBuckets } from "./kv-collection";
import {
  KvApiKeyRepo,
  KvApprovalRepo,
  KvArtifactRepo,
  KvAuditRepo,
  KvExecutionRepo,
  KvUserRepo,
  KvWebhookRepo,
  KvWorkflowRepo,
} from "./repos";

/**
 * The JetStream KV store: buckets `<namespace>_<type>` (records) and `<namespace>_<type>_idx`
 * (index keys), created on first open. The connection stays the caller's: `close` leaves it open.
 */
export async function openKvStore(nc: NatsConnection, namespace: string): Promise<Store> {
  if (!/^[A-Za-z0-9_-]+$/.test(namespace)) {
    throw new ConfigError(`store namespace "${namespace}" must match [A-Za-z0-9_-]+ (it names KV buckets)`);
  }
  const kvm = new Kvm(nc);
  const jsm = await jetstreamManager(nc);
  // One value per key is all a record needs: CAS compares against the latest revision only.
  const open = async (type: string, maxAgeMs = 0): Promise<KvBuckets> => {
    const indexBucket = `${namespace}_${type}_idx`;
    const opts = { history: 1, ...(maxAgeMs > 0 ? { ttl: maxAgeMs } : {}) };
    const [records, index] = await Promise.all([
      kvm.create(`${namespace}_${type}`, opts),
      kvm.create(indexBucket, opts),
    ]);
    return { jsm, records, index, indexBucket };
  };
  const [workflows, executions, approvals, artifacts, webhooks, users, userEmails, apiKeys, audit] = await Promise.all([
    open("workflows"),
    open("executions"),
    open("approvals"),
    open("artifacts"),
    open("webhooks"),
    open("users"),
    kvm.create(`${namespace}_user_emails`, { history: 1 }),
    open("api_keys"),
    // Audit records expire with the AUDIT stream's events; the record and its key age together.
    open("audit", AUDIT_RETENTION_MS),
  ]);
  return {
    kind: "kv",
    workflows: new KvWorkflowRepo(workflows),
    executions: new KvExecutionRepo(executions),
    approvals: new KvApprovalRepo(approvals),
    artifacts: new KvArtifactRepo(artifacts),
    webhooks: new KvWebhookRepo(webhooks),
    users: new KvUserRepo(users, userEmails),
    apiKeys: new KvApiKeyRepo(apiKeys),
    audit: new KvAuditRepo(audit),
    close: async () => {},
  };
}
