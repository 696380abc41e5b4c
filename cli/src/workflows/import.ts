import type { Plan } from "@wf/shared/auth";
import { WfError } from "@wf/shared/errors";
import {
  newWorkflowRecord,
  nextWorkflowVersion,
  ownerPlan,
  storeNewWorkflow,
  storeWorkflowUpdate,
  type Store,
  type Versioned,
  type WorkflowRecord,
} from "@wf/shared/store";
import { print, required } from "../flags";
import { withStore } from "../store-connection";
import { EXIT, UsageError, commandFlags } from "../usage";
import { loadWorkflowFile } from "../workflow-file";

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
  const loaded = await loadWorkflowFile(file);
  if (!loaded.ok) {
    console.error(loaded.report);
    return EXIT.failed;
  }
  const { text: yaml, workflow: definition } = loaded;
  const stored = await withStore(async (store) => {
    const account = await store.users.get(user);
    if (!account) throw new WfError("NOT_FOUND", `no user with id ${user}`);
    const current = values.id === undefined ? undefined : await editable(store, values.id, user);
    // Its code steps' timeouts are the owner's plan's to bound, as a console save's are.
    const mistakes = loaded.mistakesFor(
      current ? await ownerPlan(store.users, current.value.ownerId) : account.value.plan,
    );
    if (mistakes !== null) return { ok: false as const, mistakes };
    return {
      ok: true as const,
      record: current
        ? await update(store, current, { user, yaml, definition })
        : await create(store, { user, yaml, definition }, account.value.plan),
    };
  });
  if (!stored.ok) {
    console.error(stored.mistakes);
    return EXIT.failed;
  }
  const { record } = stored;
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

/** The workflow `id` as stored, if `user` owns or edits it. */
async function editable(store: Store, id: string, user: string): Promise<Versioned<WorkflowRecord>> {
  const current = await store.workflows.get(id);
  const w = current?.value;
  if (!current || !w || (w.ownerId !== user && w.sharedWith[user] !== "editor")) {
    throw new WfError("NOT_FOUND", `no workflow ${id} that user ${user} owns or edits`);
  }
  return current;
}

async function update(
  store: Store,
  current: Versioned<WorkflowRecord>,
  { yaml, definition }: Source,
): Promise<WorkflowRecord> {
  return storeWorkflowUpdate(
    store,
    nextWorkflowVersion(current.value, { yaml, workflow: definition }),
    current.version,
  );
}
