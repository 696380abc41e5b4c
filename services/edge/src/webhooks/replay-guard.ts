import type { KV } from "@nats-io/kv";
import { openKvBucket, type StreamPlacement } from "@wf/shared/nats";
import type { NatsConnection } from "@nats-io/nats-core";
import { isWrongLastSequence } from "@wf/shared/store";
import { REPLAY_TOLERANCE_S } from "./signature";

/**
 * Message ids of Standard Webhooks deliveries, remembered in the KV bucket `<ns>_webhookreplay`
 * for twice the timestamp tolerance (a delivery older than that fails the timestamp check
 * anyway). `create` lets exactly one delivery of an id through, across replicas.
 */
export class ReplayGuard {
  private constructor(private readonly kv: KV) {}

  static async open(nc: NatsConnection, ns: string, placement: StreamPlacement): Promise<ReplayGuard> {
    return new ReplayGuard(
      await openKvBucket(nc, `${ns}_webhookreplay`, { history: 1, ttlMs: 2 * REPLAY_TOLERANCE_S * 1000 }, placement),
    );
  }

  /** False when this webhook has seen this message id within the window. */
  async firstSight(webhookId: string, messageId: string): Promise<boolean> {
    const key = `${webhookId}.${Buffer.from(messageId, "utf8").toString("base64url")}`;
    try {
      await this.kv.create(key, "");
      return true;
    } catch (err) {
      if (isWrongLastSequence(err)) return false;
      throw err;
    }
  }
}
