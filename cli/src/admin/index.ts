import { EXIT, UsageError } from "../usage";
import { auditCommand } from "./audit";
import { keyCreateCommand } from "./key-create";
import { keyRevokeCommand } from "./key-revoke";
import { secretDeleteCommand, secretListCommand, secretSetCommand } from "./secret";
import { userCreateCommand } from "./user-create";
import { userUpdateCommand } from "./user-update";

export const ADMIN_HELP = `Usage: wf admin <command> [options]

Operators' commands on the service's store (the same NATS, or MongoDB, as the service):
  wf admin user create --email E --password P --plan free|pro|team|enterprise
  wf admin user update --id U [--plan P] [--status active|deactivated|locked]
  wf admin key create --user U --scopes S1,S2 [--name N] [--expires-in 10m]
  wf admin key revoke --id K
  wf admin secret set --user U --name N [--value V]   (else the value is read from stdin)
  wf admin secret list --user U
  wf admin secret delete --user U --name N
  wf admin audit [--since 10m]
Each takes --json (print the record as JSON) and --help.`;

const COMMANDS: Record<string, (argv: string[]) => Promise<number>> = {
  "user create": userCreateCommand,
  "user update": userUpdateCommand,
  "key create": keyCreateCommand,
  "key revoke": keyRevokeCommand,
  "secret set": secretSetCommand,
  "secret list": secretListCommand,
  "secret delete": secretDeleteCommand,
  audit: auditCommand,
};

export async function adminCommand(argv: string[]): Promise<number> {
  const [first, second, ...rest] = argv;
  if (first === undefined || first === "--help" || first === "-h") {
    console.log(ADMIN_HELP);
    return first === undefined ? EXIT.usage : EXIT.ok;
  }
  const two = `${first} ${second ?? ""}`;
  if (Object.hasOwn(COMMANDS, two)) return COMMANDS[two]!(rest);
  if (Object.hasOwn(COMMANDS, first)) return COMMANDS[first]!(second === undefined ? [] : [second, ...rest]);
  throw new UsageError(
    `unknown command \`wf admin ${[first, second].filter(Boolean).join(" ")}\`; commands: ${Object.keys(COMMANDS)
      .map((c) => `admin ${c}`)
      .join(", ")}`,
  );
}
