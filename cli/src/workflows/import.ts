import { readFile } from "node:fs/promises";
import type { Plan } from "@wf/shared/auth";
import { WfError } from "@wf/shared/errors";
import {
  newWorkflowRecord,
  nextWorkflowVersion,
  storeNewWorkflow,
  storeWorkflowUpdate,
  type Store,
  type WorkflowRecord,
} from "@wf/shared/store";
import { formatIssues, parseWorkflow } from "@wf/shared/workflow";
import { print, required } from "../flags";
import { withStore } from "../store-connection";
import { EXIT, UsageError, commandFlags } from "../usage";

export const IMPORT_HELP = `Usage: wf workflow import <file> --user U [--id W] [--json]

Stores a workflow file for a user, so that the v1 API can list and run it. Prints the
workflow's id. With --id, updates that workflow instead (its version goes up by one); the user
must own it or be an editor of it.

Exit codes: 0 stored; 1 the file has mistakes (printed as file:line:col), no such user, no
such workflow of that user, or a new one past the workflows the user's plan allows; 2 usage error.`;

export async function importCommand(argv: string[]): Promise<number> {
  const flags = commandFlags(
    "workflow import",
    IMPORT_HELP,
    argv,
    {
      user: { type: "string" },
      id: { type: "string" },
      json: { type: "boolean", default: false },
    },
    true,
  );
  if (!flags) return EXIT.ok;
  const { values, positionals } = flags;
  const [file, ...extra] = positionals;
  if (file === undefined)
    throw new UsageError("wf workflow import needs a workflow file\nsee: wf workflow import --help");
  if (extra.length > 0) throw new UsageError(`wf workflow import takes one file; unexpected: ${extra.join(" ")}`);
  const { user } = required("workflow import", values, "user");
  const yaml = await readFile(file, "utf8").catch((err: NodeJS.ErrnoException) => {
    throw new UsageError(`cannot read workflow file ${file}: ${err.code === "ENOENT" ? "no such file" : err.message}`);
  });
  const parsed = parseWorkflow(yaml);
  if (!parsed.ok) {
    console.error(formatIssues(parsed.errors, file));
    return EXIT.failed;
  }
  const definition = parsed.workflow;
  const record = await withStore(async (store) => {
    const account = await store.users.get(user);
    if (!account) throw new WfError("NOT_FOUND", `no user with id ${user}`);
    return values.id === undefined
      ? create(store, { user, yaml, definition }, account.value.plan)
      : update(store, values.id, { user, yaml, definition });
  });
  const { id, name, ownerId, version, createdAt, updatedAt } = record;
  print(
    values.json,
    { id, name, ownerId, version, createdAt, updatedAt },
    `${values.id === undefined ? "imported" : "updated"} workflow ${id} (${name}, version ${version})`,
  );
  return EXIT.ok;
}

interface Source {
  user: string;
  yaml: string;
  definition: { name: string };
}

/** Within the plan's workflows, as a console create is (PLAN_LIMIT past them: exit 1 with the message). */
async function create(store: Store, { user, yaml, definition }: Source, plan: Plan): Promise<WorkflowRecord> {
  const record = newWorkflowRecord({ ownerId: user, yaml, definition });
  await storeNewWorkflow(store, record, plan);
  return record;
}

async function update(store: Store, id: string, { user, yaml, definition }: Source): Promise<WorkflowRecord> {
  const current = await store.workflows.get(id);
  const w = current?.value;
  if (!current || !w || (w.ownerId !== user && w.sharedWith[user] !== "editor")) {
    throw new WfError("NOT_FOUND", `no workflow ${id} that user ${user} owns or edits`);
  }
  return storeWorkflowUpdate(store, nextWorkflowVersion(w, { yaml, workflow: definition }), current.version);
}
