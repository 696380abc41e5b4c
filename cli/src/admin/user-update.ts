import { Plan, updateUser, userView, UserStatus } from "@wf/shared/auth";
import { choice, print, required } from "../flags";
import { withStore } from "../store-connection";
import { EXIT, UsageError, parseCommandArgs } from "../usage";

export const USER_UPDATE_HELP = `Usage: wf admin user update --id U [--plan free|pro|team|enterprise] [--status active|deactivated|locked] [--json]

Changes an account's plan (its keys' rate limits) or status. A deactivated or locked account's
keys are answered 403 from their next request on, on every edge.

Exit codes: 0 updated; 1 no such user; 2 usage error (a missing flag, an unknown plan or status).`;

export async function userUpdateCommand(argv: string[]): Promise<number> {
  const { values } = parseCommandArgs("admin user update", {
    args: argv,
    options: {
      id: { type: "string" },
      plan: { type: "string" },
      status: { type: "string" },
      json: { type: "boolean", default: false },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    console.log(USER_UPDATE_HELP);
    return EXIT.ok;
  }
  const { id } = required("admin user update", values, "id");
  if (values.plan === undefined && values.status === undefined) {
    throw new UsageError("wf admin user update needs --plan or --status (or both)\nsee: wf admin user update --help");
  }
  const change = {
    ...(values.plan === undefined ? {} : { plan: choice("plan", values.plan, Plan) }),
    ...(values.status === undefined ? {} : { status: choice("status", values.status, UserStatus) }),
  };
  const user = await withStore((store) => updateUser(store, id, change));
  print(values.json, userView(user), `user ${user.id} (${user.email}): plan ${user.plan}, status ${user.status}`);
  return EXIT.ok;
}
