import { Plan, updateUser, userView, UserStatus } from "@wf/shared/auth";
import { choice, print, required } from "../flags";
import { withStore } from "../store-connection";
import { EXIT, UsageError, commandFlags } from "../usage";

export const USER_UPDATE_HELP = `Usage: wf admin user update --id U [--plan free|pro|team|enterprise] [--status active|deactivated|locked] [--egress-allow LIST] [--json]

Changes an account's plan (its keys' rate limits), status or egress list. A deactivated or
locked account's keys are answered 403 from their next request on, on every edge.
--egress-allow narrows where the account's code steps with network access may connect, within
the service's policy: comma-separated host names, *. patterns, addresses or CIDR ranges, each
with an optional :port ("api.github.com,*.example.com:443"); "" removes the narrowing.

Exit codes: 0 updated; 1 no such user; 2 usage error (a missing flag, an unknown plan or status, a bad egress entry).`;

export async function userUpdateCommand(argv: string[]): Promise<number> {
  const flags = commandFlags("admin user update", USER_UPDATE_HELP, argv, {
    id: { type: "string" },
    plan: { type: "string" },
    status: { type: "string" },
    "egress-allow": { type: "string" },
    json: { type: "boolean", default: false },
  });
  if (!flags) return EXIT.ok;
  const { values } = flags;
  const { id } = required("admin user update", values, "id");
  const egress = values["egress-allow"];
  if (values.plan === undefined && values.status === undefined && egress === undefined) {
    throw new UsageError(
      "wf admin user update needs --plan, --status or --egress-allow\nsee: wf admin user update --help",
    );
  }
  const change = {
    ...(values.plan === undefined ? {} : { plan: choice("plan", values.plan, Plan) }),
    ...(values.status === undefined ? {} : { status: choice("status", values.status, UserStatus) }),
    ...(egress === undefined
      ? {}
      : {
          egressAllow: egress
            .split(",")
            .map((e) => e.trim())
            .filter(Boolean),
        }),
  };
  const user = await withStore((store) => updateUser(store, id, change));
  const narrowing = user.egressAllow ? `, egress ${user.egressAllow.join(",")}` : "";
  print(
    values.json,
    userView(user),
    `user ${user.id} (${user.email}): plan ${user.plan}, status ${user.status}${narrowing}`,
  );
  return EXIT.ok;
}
