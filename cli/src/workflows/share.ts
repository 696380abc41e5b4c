import { z } from "zod";
import { WfError } from "@wf/shared/errors";
import { choice, print, required } from "../flags";
import { withStore } from "../store-connection";
import { EXIT, commandFlags } from "../usage";

export const SHARE_HELP = `Usage: wf workflow share --id W --user U --role viewer|editor [--json]

Shares a workflow with another user: a viewer sees it (and its executions, approvals and
artifacts) through the API; an editor may also start and cancel its executions and decide its
approvals. Sharing again changes the role.

Exit codes: 0 shared; 1 no such workflow or user, or the user owns it; 2 usage error.`;

const Role = z.enum(["viewer", "editor"]);

export async function shareCommand(argv: string[]): Promise<number> {
  const flags = commandFlags("workflow share", SHARE_HELP, argv, {
    id: { type: "string" },
    user: { type: "string" },
    role: { type: "string" },
    json: { type: "boolean", default: false },
  });
  if (!flags) return EXIT.ok;
  const { values } = flags;
  const { id, user, role: roleName } = required("workflow share", values, "id", "user", "role");
  const role = choice("role", roleName, Role);
  const workflow = await withStore(async (store) => {
    const [current, sharee] = await Promise.all([store.workflows.get(id), store.users.get(user)]);
    if (!current) throw new WfError("NOT_FOUND", `no workflow with id ${id}`);
    if (!sharee) throw new WfError("NOT_FOUND", `no user with id ${user}`);
    if (current.value.ownerId === user) throw new WfError("CONFLICT", `user ${user} owns workflow ${id}`);
    const next = { ...current.value, sharedWith: { ...current.value.sharedWith, [user]: role }, updatedAt: Date.now() };
    await store.workflows.update(next, current.version);
    return next;
  });
  print(
    values.json,
    { id: workflow.id, sharedWith: workflow.sharedWith },
    `workflow ${workflow.id} shared with ${user} as ${role}`,
  );
  return EXIT.ok;
}
