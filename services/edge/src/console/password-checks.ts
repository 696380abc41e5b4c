import type { FastifyReply } from "fastify";
import { hashPassword, verifyPassword } from "@wf/shared/auth";
import { AnswerError } from "../errors";
import { countPasswordHash } from "../ops/login-metrics";
import { FairGate, GateFull } from "./fair-gate";

/**
 * The Retry-After of a refusal: a full queue drains in a few seconds (WF_PASSWORD_HASH_QUEUE
 * checks of about half a second each, WF_PASSWORD_HASH_CONCURRENCY at once).
 */
const BUSY_RETRY_AFTER_S = 2;

/**
 * Who a check is for: its fairness lanes (the client address, then the account), and the answer a refusal sets
 * Retry-After on.
 */
export interface CheckFor {
  lanes: readonly string[];
  reply: FastifyReply;
}

/**
 * The edge's password hashing (scrypt), which runs on libuv's thread pool, shared with the
 * process's file and DNS work: at most WF_PASSWORD_HASH_CONCURRENCY at once and
 * WF_PASSWORD_HASH_QUEUE waiting, taken fairly (fair-gate.ts). Past that, 503
 * `PASSWORD_CHECKS_BUSY` at once: a flood of logins is refused, not queued without end while the
 * API's own I/O waits behind it.
 */
export class PasswordChecks {
  readonly #gate: FairGate;

  constructor(concurrency: number, queueLimit: number) {
    this.#gate = new FairGate(concurrency, queueLimit);
  }

  verify(password: string, stored: string, checkFor: CheckFor): Promise<boolean> {
    return this.#run(checkFor, () => verifyPassword(password, stored));
  }

  hash(password: string, checkFor: CheckFor): Promise<string> {
    return this.#run(checkFor, () => hashPassword(password));
  }

  async #run<T>({ lanes, reply }: CheckFor, work: () => Promise<T>): Promise<T> {
    try {
      return await this.#gate.run(lanes, () => {
        countPasswordHash();
        return work();
      });
    } catch (err) {
      if (!(err instanceof GateFull)) throw err;
      void reply.header("retry-after", BUSY_RETRY_AFTER_S);
      throw new AnswerError(
        "PASSWORD_CHECKS_BUSY",
        "too many password checks are waiting on this server: retry in a few seconds",
        {
          retryAfterSeconds: BUSY_RETRY_AFTER_S,
        },
      );
    }
  }
}

/** Whether an error is the refusal of a full queue. */
export const isBusy = (err: unknown): boolean => err instanceof AnswerError && err.code === "PASSWORD_CHECKS_BUSY";
