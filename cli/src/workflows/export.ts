import { writeFile } from "node:fs/promises";
import { WfError } from "@wf/shared/errors";
import { parseWorkflow } from "@wf/shared/workflow";
import { required } from "../flags";
import { withStore } from "../store-connection";
import { EXIT, UsageError, commandFlags } from "../usage";

export const EXPORT_HELP = `Usage: wf workflow export --id W [--version N] [--out FILE] [--json]

Writes a stored workflow's YAML as it was saved (comments and all): the current version, or
version N. To stdout, or to FILE; with --json, {id, name, version, yaml} instead. The file
imports again with \`wf workflow import\`.

Exit codes: 0 written; 1 no such workflow or version; 2 usage error.`;

export async function exportCommand(argv: string[]): Promise<number> {
  const flags = commandFlags("workflow export", EXPORT_HELP, argv, {
    id: { type: "string" },
    version: { type: "string" },
    out: { type: "string" },
    json: { type: "boolean", default: false },
  });
  if (!flags) return EXIT.ok;
  const { values } = flags;
  const { id } = required("workflow export", values, "id");
  const asked = values.version === undefined ? undefined : versionFlag(values.version);
  const found = await withStore(async (store) => {
    const stored = (await store.workflows.get(id))?.value;
    if (!stored) throw new WfError("NOT_FOUND", `no workflow with id ${id}`);
    if (asked === undefined || asked === stored.version) return stored;
    const earlier = stored.history?.find((h) => h.version === asked);
    if (!earlier)
      throw new WfError("NOT_FOUND", `workflow ${id} has no version ${asked} (its versions: ${versions(stored)})`);
    // An earlier version's name is the one its text gives (a file stored as valid parses again; if a later rule
    // refuses it now, the current name stands in).
    const parsed = parseWorkflow(earlier.yaml);
    return {
      ...stored,
      name: parsed.ok ? parsed.workflow.name : stored.name,
      version: earlier.version,
      yaml: earlier.yaml,
    };
  });
  const text = values.json
    ? `${JSON.stringify({ id: found.id, name: found.name, version: found.version, yaml: found.yaml }, null, 2)}\n`
    : found.yaml;
  if (values.out === undefined) process.stdout.write(text);
  else {
    await writeFile(values.out, text);
    console.error(`workflow ${found.id} version ${found.version} written to ${values.out}`);
  }
  return EXIT.ok;
}

function versionFlag(text: string): number {
  if (!/^[1-9]\d{0,8}$/.test(text)) throw new UsageError(`--version ${text}: use a version number (1, 2, ...)`);
  return Number(text);
}

/** The versions a record still holds, as `1-4` or `1, 3-4`. */
function versions(stored: { version: number; history?: { version: number }[] }): string {
  const held = [...(stored.history ?? []).map((h) => h.version), stored.version];
  const runs: string[] = [];
  for (let i = 0; i < held.length;) {
    let j = i;
    while (j + 1 < held.length && held[j + 1] === held[j]! + 1) j++;
    runs.push(i === j ? `${held[i]}` : `${held[i]}-${held[j]}`);
    i = j + 1;
  }
  return runs.join(", ");
}
