import { createUser, Plan, userView } from "@wf/shared/auth";
import { choice, print, required } from "../flags";
import { withStore } from "../store-connection";
import { EXIT, commandFlags } from "../usage";

export const USER_CREATE_HELP = `Usage: wf admin user create --email E --password P --plan free|pro|team|enterprise [--json]

Creates an active account. The password is kept as a scrypt hash only. Prints the user's id
(with --json the whole record, without the password hash).

Exit codes: 0 created; 1 refused (an account with this email exists, an invalid email or a
password under 8 characters); 2 usage error (a missing flag, an unknown plan).`;

export async function userCreateCommand(argv: string[]): Promise<number> {
  const flags = commandFlags("admin user create", USER_CREATE_HELP, argv, {
    email: { type: "string" },
    password: { type: "string" },
    plan: { type: "string" },
    json: { type: "boolean", default: false },
  });
  if (!flags) return EXIT.ok;
  const { values } = flags;
  const { email, password, plan: planName } = required("admin user create", values, "email", "password", "plan");
  const plan = choice("plan", planName, Plan);
  const user = await withStore((store) => createUser(store, { email, password, plan }));
  print(values.json, userView(user), `created user ${user.id} (${user.email}, plan ${user.plan})`);
  return EXIT.ok;
}
