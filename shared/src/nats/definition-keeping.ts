const DAY_MS = 86_400_000;

/**
 * A process names a definition it knows stored (a command, a record) only after putting it again once its last put is
 * this old: an entry in use never comes near its expiry.
 */
export const REFRESH_AFTER_MS = DAY_MS;

/**
 * Past this since its last put, as far as a process knows, a record is written with its definition whole rather than
 * naming it: a process that cannot put it again (or has not yet) never names one that may expire before the record.
 */
export const NAME_WITHIN_MS = 2 * DAY_MS;

/**
 * How long a definition outlives the records that name it: retention removes a finished record WF_EXECUTION_RETENTION
 * after its execution was created, once a sweep comes by (WF_RETENTION_SWEEP_MS, at most a day). A record names only a
 * definition put within NAME_WITHIN_MS, so this much past the retention leaves it a day of room for that sweep.
 */
const PAST_RETENTION_MS = NAME_WITHIN_MS + DAY_MS;

/**
 * The age at which a stored definition expires (the bucket's max age) for a retention of `retentionMs`: none with
 * retention off, whose records are kept for good, and so are the definitions they name.
 */
export function definitionsTtlMs(retentionMs: number | null): number | undefined {
  return retentionMs === null ? undefined : retentionMs + PAST_RETENTION_MS;
}
