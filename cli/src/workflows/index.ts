import { EXIT, UsageError } from "../usage";
import { exportCommand } from "./export";
import { importCommand } from "./import";
import { shareCommand } from "./share";

export const WORKFLOW_HELP = `Usage: wf workflow <command> [options]

Stored workflows, as the v1 API lists and runs them:
  wf workflow import <file> --user U [--id W]     store (or update) a workflow for a user
  wf workflow share --id W --user U --role viewer|editor
  wf workflow export --id W [--version N] [--out FILE]  its YAML, as saved
Each takes --json and --help.`;

const COMMANDS: Record<string, (argv: string[]) => Promise<number>> = {
  import: importCommand,
  share: shareCommand,
  export: exportCommand,
};

export async function workflowCommand(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "--help" || name === "-h") {
    console.log(WORKFLOW_HELP);
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  if (!Object.hasOwn(COMMANDS, name))
    throw new UsageError(
      `unknown command \`wf workflow ${name}\`; commands: workflow import, workflow share, workflow export`,
    );
  return COMMANDS[name]!(rest);
}
