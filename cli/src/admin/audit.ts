import type { AuditRecord } from "@wf/shared/store";
import { parseSince } from "../since";
import { withStore } from "../store-connection";
import { EXIT, UsageError, commandFlags } from "../usage";

export const AUDIT_HELP = `Usage: wf admin audit [--since 1h] [--limit 100] [--json]

Lists refused requests, newest first: when, why (missing, malformed, unknown_key, bad_secret,
revoked, expired, insufficient_scope, webhook_key_mismatch, hmac_mismatch, bad_signature,
url_expired, url_lifetime_exceeded; login_throttled: a console login refused by its throttle;
webhook_throttled: a webhook trigger refused after too many wrong signatures from its address),
the key id when one could be read, the client address, method and path. Past an edge's budget
(WF_AUDIT_PER_IP_PER_MINUTE, WF_AUDIT_PER_MINUTE) refusals are counted instead: a summary line
says how many came in the minute before it, from that address (* for many). The same records
are published on <namespace>.audit.<reason> (stream <namespace>_AUDIT).

Options:
  --since WHEN   a duration back from now (30s, 10m, 1h, 2d) or an ISO-8601 time (default 1h)
  --limit N      at most N records (default 100)
  --json         print them as a JSON array

Exit codes: 0 listed; 2 usage error.`;

const PAGE = 200;

export async function auditCommand(argv: string[]): Promise<number> {
  const flags = commandFlags("admin audit", AUDIT_HELP, argv, {
    since: { type: "string", default: "1h" },
    limit: { type: "string", default: "100" },
    json: { type: "boolean", default: false },
  });
  if (!flags) return EXIT.ok;
  const { values } = flags;
  const since = parseSince(values.since);
  const limit = Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1)
    throw new UsageError(`--limit ${values.limit}: give a whole number of records, at least 1`);
  const records = await withStore(async (store) => {
    const out: AuditRecord[] = [];
    for (let page = 1; out.length < limit; page++) {
      const { items } = await store.audit.listSince(since, { page, size: PAGE });
      out.push(...items);
      if (items.length < PAGE) break;
    }
    return out.slice(0, limit);
  });
  if (values.json) console.log(JSON.stringify(records, null, 2));
  else
    for (const r of records)
      console.log(
        `${new Date(r.at).toISOString()}  ${r.reason.padEnd(18)}  ${r.method} ${r.path}  key ${r.keyId ?? "-"}  from ${r.ip}` +
          (r.repeats > 0 ? `  (${r.repeats} refusals counted in the minute before, the last shown)` : ""),
      );
  return EXIT.ok;
}
