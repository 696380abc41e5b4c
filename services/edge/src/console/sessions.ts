import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { KV } from "@nats-io/kv";
import { openKvBucket, type StreamPlacement } from "@wf/shared/nats";
import type { NatsConnection } from "@nats-io/nats-core";
import { z } from "zod";

const Stored = z.object({ userId: z.string(), csrfHash: z.string(), createdAt: z.number(), expiresAt: z.number() });
export type Session = z.infer<typeof Stored>;

const digest = (token: string): string => createHash("sha256").update(token, "utf8").digest("hex");
const token = (): string => randomBytes(32).toString("base64url");

/**
 * Console sessions in the KV bucket `<ns>_sessions`, so that they survive an edge restart and
 * hold on every replica. Only SHA-256 digests are stored: the key is the digest of the session
 * id (the cookie), the value holds the digest of the CSRF token; reading the bucket gives no
 * usable session. The bucket's max age removes sessions once they expire.
 */
export class SessionStore {
  private constructor(
    private readonly kv: KV,
    private readonly ttlMs: number,
  ) {}

  static async open(
    nc: NatsConnection,
    ns: string,
    placement: StreamPlacement,
    ttlSeconds: number,
  ): Promise<SessionStore> {
    return new SessionStore(
      await openKvBucket(nc, `${ns}_sessions`, { history: 1, ttlMs: ttlSeconds * 1000 }, placement),
      ttlSeconds * 1000,
    );
  }

  async create(userId: string, now: number): Promise<{ sessionId: string; csrfToken: string; expiresAt: number }> {
    const sessionId = token();
    const csrfToken = token();
    const session: Session = { userId, csrfHash: digest(csrfToken), createdAt: now, expiresAt: now + this.ttlMs };
    await this.kv.create(digest(sessionId), JSON.stringify(session));
    return { sessionId, csrfToken, expiresAt: session.expiresAt };
  }

  async get(sessionId: string, now: number): Promise<Session | null> {
    if (!/^[A-Za-z0-9_-]{43}$/.test(sessionId)) return null;
    const entry = await this.kv.get(digest(sessionId));
    if (entry?.operation !== "PUT") return null;
    const session = Stored.parse(entry.json());
    return session.expiresAt > now ? session : null;
  }

  async end(sessionId: string): Promise<void> {
    await this.kv.purge(digest(sessionId));
  }

  /**
   * Ends every session of `userId` but `keepSessionId` (a password change). Sessions are keyed by
   * digest, not by user, so this reads the whole bucket: fine for a rare change and a bucket that
   * holds only live sessions. Returns how many were ended.
   */
  async endOthers(userId: string, keepSessionId: string): Promise<number> {
    const keep = digest(keepSessionId);
    const keys: string[] = [];
    for await (const key of await this.kv.keys()) if (key !== keep) keys.push(key);
    let ended = 0;
    for (const key of keys) {
      const entry = await this.kv.get(key);
      if (entry?.operation !== "PUT") continue;
      const parsed = Stored.safeParse(entry.json());
      if (!parsed.success || parsed.data.userId !== userId) continue;
      await this.kv.purge(key);
      ended++;
    }
    return ended;
  }
}

export function csrfMatches(session: Session, presented: string | undefined): boolean {
  if (presented === undefined || presented === "") return false;
  return timingSafeEqual(Buffer.from(digest(presented), "hex"), Buffer.from(session.csrfHash, "hex"));
}
