import type { NatsConnection, Subscription } from "@nats-io/nats-core";
import { WfError, type ErrorCode } from "@wf/shared/errors";
import type { Logger } from "@wf/shared/log";
import { SecretsRequest, type SecretsReply } from "@wf/shared/messages";
import { subjects } from "@wf/shared/nats";
import { deleteSecret, listSecrets, setSecret, type SecretBox } from "@wf/shared/secrets";
import type { Store } from "@wf/shared/store";

function failure(code: ErrorCode, error: string): SecretsReply {
  return { ok: false, code, error };
}

/**
 * Answers `<ns>.svc.secrets` for the console (one executor of the queue group each): sets, lists
 * and deletes an owner's secrets as `wf admin secret` does, sealing with the key only executors
 * hold. Values travel in the request only (on the service's own NATS connection) and are never
 * logged or answered back.
 */
export function serveSecrets(nc: NatsConnection, ns: string, store: Store, box: SecretBox, log: Logger): Subscription {
  return nc.subscribe(subjects(ns).secrets, {
    queue: "secrets",
    callback: (_err, msg) => {
      void answer(msg.data, store, box).then(
        (reply) => msg.respond(JSON.stringify(reply)),
        (err: unknown) => {
          // A refusal of the rules (a bad name, a short value) is the caller's to fix; anything else is ours.
          if (err instanceof WfError) return msg.respond(JSON.stringify(failure(err.code, err.message)));
          log.error("a secrets request failed", { err });
          msg.respond(
            JSON.stringify(failure("UNAVAILABLE", "the secret could not be kept: the store did not answer; try again")),
          );
        },
      );
    },
  });
}

async function answer(data: Uint8Array, store: Store, box: SecretBox): Promise<SecretsReply> {
  let body: unknown;
  try {
    body = JSON.parse(new TextDecoder().decode(data));
  } catch {
    return failure("VALIDATION_FAILED", "malformed secrets request");
  }
  const parsed = SecretsRequest.safeParse(body);
  if (!parsed.success) return failure("VALIDATION_FAILED", "malformed secrets request");
  const req = parsed.data;
  switch (req.op) {
    case "set":
      return { ok: true, secret: await setSecret(store, box, req.ownerId, req.name, req.value, req.at) };
    case "list":
      return { ok: true, secrets: await listSecrets(store, req.ownerId) };
    case "delete":
      return { ok: true, deleted: await deleteSecret(store, req.ownerId, req.name) };
  }
}
