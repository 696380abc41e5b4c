import { countSteps } from "@wf/shared/workflow";
import { commandFlags, EXIT, UsageError } from "./usage";
import { loadWorkflowFile } from "./workflow-file";

export const VALIDATE_HELP = `Usage: wf validate <file>

Checks a workflow file without running it: the YAML, the schema, step references and
expressions. Prints "<file>: valid (N steps)", or every mistake as
"file:line:col  path: message".

Options:
  -h, --help   this help

Exit codes: 0 valid, 1 mistakes found, 2 usage error (no file, unreadable file, unknown flag).`;

export async function validateCommand(argv: string[]): Promise<number> {
  const flags = commandFlags("validate", VALIDATE_HELP, argv, {}, true);
  if (!flags) return EXIT.ok;
  const { positionals } = flags;
  const [file, ...extra] = positionals;
  if (file === undefined) throw new UsageError("wf validate needs a workflow file\nsee: wf validate --help");
  if (extra.length > 0) throw new UsageError(`wf validate takes one file; unexpected: ${extra.join(" ")}`);
  const loaded = await loadWorkflowFile(file);
  if (!loaded.ok) {
    console.log(loaded.report);
    return EXIT.failed;
  }
  const n = countSteps(loaded.workflow);
  console.log(`${file}: valid (${n} ${n === 1 ? "step" : "steps"})`);
  return EXIT.ok;
}
