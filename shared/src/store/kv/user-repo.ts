import type { KV } from "@nats-io/kv";
import { AlreadyExistsError } from "../../errors";
import type { UserRepo, Versioned } from "../port";
import { UserRecord } from "../records";
import { keyToken } from "./key-codec";
import type { KvBuckets } from "./kv-buckets";
import { KvCollection, kvParts } from "./kv-collection";
import { NO_INDEX } from "./layouts";
import { isWrongLastSequence } from "../../nats/wrong-last-sequence";

/**
 * Users by id, and a bucket of email claims (lower-cased email -> user id) that makes emails
 * unique: a user is created only after its claim is, and KV `create` lets one claim win. A
 * claim left by a crash between the two writes names a user that does not exist; the next
 * create of that email takes it over.
 */
export class KvUserRepo extends KvCollection<UserRecord> implements UserRepo {
  constructor(
    buckets: KvBuckets,
    private readonly emails: KV,
  ) {
    super(kvParts(buckets, "users", UserRecord, NO_INDEX));
  }

  override async create(value: UserRecord): Promise<number> {
    const claim = emailClaim(value.email);
    await this.#claim(claim, value);
    try {
      return await super.create(value);
    } catch (err) {
      await this.#release(claim, value.id);
      throw err;
    }
  }

  override async delete(id: string): Promise<void> {
    const current = await this.get(id);
    await super.delete(id);
    if (current) await this.#release(emailClaim(current.value.email), id);
  }

  async getByEmail(email: string): Promise<Versioned<UserRecord> | null> {
    const entry = await this.emails.get(emailClaim(email));
    if (entry === null || entry.operation !== "PUT") return null;
    const user = await this.get(entry.string());
    return user && emailClaim(user.value.email) === emailClaim(email) ? user : null;
  }

  async #claim(claim: string, value: UserRecord): Promise<void> {
    try {
      await this.emails.create(claim, value.id);
      return;
    } catch (err) {
      if (!isWrongLastSequence(err)) throw err;
    }
    const entry = await this.emails.get(claim);
    const holder = entry?.operation === "PUT" ? entry.string() : null;
    if (entry === null || (holder !== null && (await this.get(holder)) !== null)) {
      throw new AlreadyExistsError(`a user with email ${value.email}`);
    }
    try {
      await this.emails.update(claim, value.id, entry.revision);
    } catch (err) {
      if (isWrongLastSequence(err)) throw new AlreadyExistsError(`a user with email ${value.email}`);
      throw err;
    }
  }

  async #release(claim: string, userId: string): Promise<void> {
    const entry = await this.emails.get(claim);
    if (entry?.operation !== "PUT" || entry.string() !== userId) return;
    // A claim changed since it was read belongs to someone else now.
    await this.emails.delete(claim, { previousSeq: entry.revision }).catch((err: unknown) => {
      if (!isWrongLastSequence(err)) throw err;
    });
  }
}

function emailClaim(email: string): string {
  return keyToken(email.trim().toLowerCase());
}
