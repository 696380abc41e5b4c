import { createApiKey, Scope, SCOPES } from "@wf/shared/auth";
import { parseDurationMs } from "../duration";
import { choice, print, required } from "../flags";
import { withStore } from "../store-connection";
import { EXIT, UsageError, commandFlags } from "../usage";

export const KEY_CREATE_HELP = `Usage: wf admin key create --user U --scopes S1,S2 [--name N] [--expires-in 10m] [--json]

Creates an API key for a user and prints it once: wfk_<keyId>_<secret>. Only a hash of the
secret is kept; a lost key cannot be shown again (revoke it and create another).

Options:
  --user U          the owning user's id
  --scopes S1,S2    one or more of: ${SCOPES.join(", ")}
  --name N          a label, e.g. the system that uses the key
  --expires-in D    lifetime: 30s, 10m, 1h, 30d, 1h30m (default: never expires)
  --json            print {id, key, name, ownerId, scopes, createdAt, expiresAt}

Exit codes: 0 created; 1 no such user; 2 usage error (a missing flag, an unknown scope, a bad duration).`;

export async function keyCreateCommand(argv: string[]): Promise<number> {
  const flags = commandFlags("admin key create", KEY_CREATE_HELP, argv, {
    user: { type: "string" },
    scopes: { type: "string" },
    name: { type: "string", default: "" },
    "expires-in": { type: "string" },
    json: { type: "boolean", default: false },
  });
  if (!flags) return EXIT.ok;
  const { values } = flags;
  const { user, scopes: scopeList } = required("admin key create", values, "user", "scopes");
  const scopes = scopeList.split(",").map((s) => choice("scopes", s.trim(), Scope));
  const now = Date.now();
  let expiresAt: number | null = null;
  if (values["expires-in"] !== undefined) {
    const ms = parseDurationMs(values["expires-in"]);
    if (ms === null || ms <= 0)
      throw new UsageError(`--expires-in ${values["expires-in"]}: give a duration such as 30s, 10m, 1h, 30d`);
    expiresAt = now + ms;
  }
  const { key, record } = await withStore((store) =>
    createApiKey(store, { ownerId: user, scopes, name: values.name, expiresAt }, now),
  );
  const shown = {
    id: record.id,
    key,
    name: record.name,
    ownerId: record.ownerId,
    scopes: record.scopes,
    createdAt: record.createdAt,
    expiresAt: record.expiresAt,
  };
  const expiry = record.expiresAt === null ? "never expires" : `expires ${new Date(record.expiresAt).toISOString()}`;
  print(
    values.json,
    shown,
    `${key}\nkey ${record.id} of user ${record.ownerId}, scopes ${record.scopes.join(",")}, ${expiry}\nStore it now: it is not shown again.`,
  );
  return EXIT.ok;
}
