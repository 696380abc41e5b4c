import { text } from "node:stream/consumers";
import { WfError } from "@wf/shared/errors";
import { createLogger } from "@wf/shared/log";
import { deleteSecret, listSecrets, openOwnerSecretsBox, type SecretBox, setSecret } from "@wf/shared/secrets";
import type { Store } from "@wf/shared/store";
import { print, required } from "../flags";
import { withStore } from "../store-connection";
import type { ServiceConnection } from "../connection";
import { commandFlags, EXIT, UsageError } from "../usage";

export const SECRET_SET_HELP = `Usage: wf admin secret set --user U --name N [--value V] [--json]

Creates or replaces a secret of user U, read in U's workflows as {{ secrets.N }} (MCP server
headers, prompts, inputs). The value is read from standard input when --value is not given
(so that it stays out of the shell history), one trailing newline dropped. It is stored
encrypted (AES-256-GCM under the executors' key: WF_SECRETS_KEY, else keys.json in
WF_DATA_DIR) and masked as *** in every stored or published result, event and log of the
executions that read it; it is never printed.

Names: a letter or _, then letters, digits and _ (64 at most). Values: 4 characters or more.

Exit codes: 0 set; 1 refused (no such user, a bad name or value); 2 usage error.`;

export const SECRET_LIST_HELP = `Usage: wf admin secret list --user U [--json]

Lists the names of user U's secrets, with when each was created and last set. Never the values.

Exit codes: 0 listed; 1 no such user; 2 usage error.`;

export const SECRET_DELETE_HELP = `Usage: wf admin secret delete --user U --name N [--json]

Deletes a secret of user U. Executions that read it afterwards see it missing (empty text).

Exit codes: 0 deleted; 1 no such user or secret; 2 usage error.`;

const userOptions = {
  user: { type: "string" },
  json: { type: "boolean", default: false },
} as const;

async function withSecrets<T>(userId: string, body: (store: Store, box: SecretBox) => Promise<T>): Promise<T> {
  return withStore(async (store, conn: ServiceConnection) => {
    if ((await store.users.get(userId)) === null) throw new WfError("NOT_FOUND", `no user ${userId}`);
    // The executors' key, found as they find it (a warning, if any, is all a command shows of it).
    const box = await openOwnerSecretsBox({
      nc: conn.nc,
      config: conn.config,
      store,
      log: createLogger("warn", { component: "wf-cli" }),
    });
    return body(store, box);
  });
}

export async function secretSetCommand(argv: string[]): Promise<number> {
  const flags = commandFlags("admin secret set", SECRET_SET_HELP, argv, {
    ...userOptions,
    name: { type: "string" },
    value: { type: "string" },
  });
  if (!flags) return EXIT.ok;
  const { values } = flags;
  const { user, name } = required("admin secret set", values, "user", "name");
  let value = values.value;
  if (value === undefined) {
    if (process.stdin.isTTY)
      throw new UsageError(
        'wf admin secret set needs --value, or the value on standard input (e.g. `printf %s "$TOKEN" | wf admin secret set ...`)',
      );
    value = (await text(process.stdin)).replace(/\r?\n$/, "");
  }
  const secret = value;
  const info = await withSecrets(user, (store, box) => setSecret(store, box, user, name, secret));
  print(values.json, { user, ...info }, `set secret ${info.name} of user ${user}`);
  return EXIT.ok;
}

export async function secretListCommand(argv: string[]): Promise<number> {
  const flags = commandFlags("admin secret list", SECRET_LIST_HELP, argv, userOptions);
  if (!flags) return EXIT.ok;
  const { values } = flags;
  const { user } = required("admin secret list", values, "user");
  const secrets = await withSecrets(user, (store) => listSecrets(store, user));
  if (values.json) console.log(JSON.stringify(secrets, null, 2));
  else for (const s of secrets) console.log(`${s.name.padEnd(32)}  set ${new Date(s.updatedAt).toISOString()}`);
  return EXIT.ok;
}

export async function secretDeleteCommand(argv: string[]): Promise<number> {
  const flags = commandFlags("admin secret delete", SECRET_DELETE_HELP, argv, {
    ...userOptions,
    name: { type: "string" },
  });
  if (!flags) return EXIT.ok;
  const { values } = flags;
  const { user, name } = required("admin secret delete", values, "user", "name");
  const deleted = await withSecrets(user, (store) => deleteSecret(store, user, name));
  if (!deleted) throw new WfError("NOT_FOUND", `user ${user} has no secret ${name}`);
  print(values.json, { user, name, deleted: true }, `deleted secret ${name} of user ${user}`);
  return EXIT.ok;
}
