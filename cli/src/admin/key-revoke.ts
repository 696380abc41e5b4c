import { revokeApiKey } from "@wf/shared/auth";
import { print, required } from "../flags";
import { withStore } from "../store-connection";
import { EXIT, commandFlags } from "../usage";

export const KEY_REVOKE_HELP = `Usage: wf admin key revoke --id K [--json]

Revokes an API key: every edge refuses it from its next request on. Revoking a revoked key
keeps its first revocation time.

Exit codes: 0 revoked; 1 no such key; 2 usage error.`;

export async function keyRevokeCommand(argv: string[]): Promise<number> {
  const flags = commandFlags("admin key revoke", KEY_REVOKE_HELP, argv, {
    id: { type: "string" },
    json: { type: "boolean", default: false },
  });
  if (!flags) return EXIT.ok;
  const { values } = flags;
  const { id } = required("admin key revoke", values, "id");
  const key = await withStore((store) => revokeApiKey(store, id));
  print(
    values.json,
    { id: key.id, revokedAt: key.revokedAt },
    `revoked key ${key.id} at ${new Date(key.revokedAt!).toISOString()}`,
  );
  return EXIT.ok;
}
