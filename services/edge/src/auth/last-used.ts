import { CasConflictError } from "@wf/shared/errors";
import type { Logger } from "@wf/shared/log";
import { Lru } from "@wf/shared/pools";
import type { ApiKeyRecord, Store, Versioned } from "@wf/shared/store";

const INTERVAL_MS = 60_000;
const REMEMBERED_KEYS = 10_000;

/**
 * Keeps each key's `lastUsedAt` to the minute without a write per request: at most one write a
 * minute per key and process, in the background, at the version the request read (a revocation
 * written meanwhile wins; this touch is then dropped).
 */
export class LastUsed {
  readonly #written = new Lru<string, number>(REMEMBERED_KEYS);

  constructor(
    private readonly store: Store,
    private readonly log: Logger,
  ) {}

  touch(key: Versioned<ApiKeyRecord>, now: number): void {
    const { id, lastUsedAt } = key.value;
    const last = Math.max(this.#written.get(id) ?? 0, lastUsedAt ?? 0);
    if (now - last < INTERVAL_MS) return;
    this.#written.set(id, now);
    this.store.apiKeys.update({ ...key.value, lastUsedAt: now }, key.version).catch((err: unknown) => {
      if (!(err instanceof CasConflictError)) this.log.warn("lastUsedAt not written", { keyId: id, err });
    });
  }
}
