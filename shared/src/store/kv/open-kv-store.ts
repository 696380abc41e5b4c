import { jetstreamManager } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/nats-core";
import { ConfigError } from "../../errors";
import type { Store } from "../port";
import type { KvBuckets } from "./kv-collection";
import { KvApprovalRepo, KvArtifactRepo, KvExecutionRepo, KvWebhookRepo, KvWorkflowRepo } from "./repos";

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
  const open = async (type: string): Promise<KvBuckets> => {
    const indexBucket = `${namespace}_${type}_idx`;
    const [records, index] = await Promise.all([
      kvm.create(`${namespace}_${type}`, { history: 1 }),
      kvm.create(indexBucket, { history: 1 }),
    ]);
    return { jsm, records, index, indexBucket };
  };
  const [workflows, executions, approvals, artifacts, webhooks] = await Promise.all([
    open("workflows"),
    open("executions"),
    open("approvals"),
    open("artifacts"),
    open("webhooks"),
  ]);
  return {
    kind: "kv",
    workflows: new KvWorkflowRepo(workflows),
    executions: new KvExecutionRepo(executions),
    approvals: new KvApprovalRepo(approvals),
    artifacts: new KvArtifactRepo(artifacts),
    webhooks: new KvWebhookRepo(webhooks),
    close: async () => {},
  };
}
