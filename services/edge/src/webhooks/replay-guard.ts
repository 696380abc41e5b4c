import { Kvm, type KV } from "@nats-io/kv";
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

  static async open(nc: NatsConnection, ns: string): Promise<ReplayGuard> {
    return new ReplayGuard(await new Kvm(nc).create(`${ns}_webhookreplay`, { history: 1, ttl: 2 * REPLAY_TOLERANCE_S * 1000 }));
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
