import { WfError } from "@wf/shared/errors";
import { EXIT, UsageError } from "./usage";

const HELP = `wf: run and follow workflows of the workflow service from a terminal

Usage:
  wf validate <file>         check a workflow file, print its mistakes with line:col
  wf run <file> [options]    run a workflow file in the service, print its events live
  wf run <file-or-id> --step NAME [--from-execution ID]
                             run one step alone, on what an earlier execution recorded
  wf rerun <id> --from STEP  rerun a finished execution from a step, reusing the steps before it
  wf debug <file> --break B  run with breakpoints; at each pause, inspect, edit and step at a prompt
  wf tail [options]          follow execution events as they are published
  wf workflow import|share   store workflows for users, share them (the v1 API runs them)
  wf admin user|key|audit    accounts, API keys and the audit log of refused requests
  wf <command> --help        the options of one command

Environment (as the service reads it):
  NATS_URL       the service's NATS, with NATS_USER and NATS_PASSWORD (or NATS_TOKEN) if it asks
                 for credentials; unset: the nats-server \`npm start\` runs for WF_DATA_DIR, with
                 the credentials it keeps there (the CLI never starts one)
  WF_DATA_DIR    the service's data directory (default .data): that server, and keys.json
  WF_NAMESPACE   prefix of the service's subjects, streams and buckets (default wf)
  MONGODB_URI    read execution results from MongoDB instead of JetStream KV

Exit codes:
  0    success: the file is valid, the execution (or rerun) ended COMPLETED, tail stopped with Ctrl-C
  1    the workflow file has mistakes, the execution ended FAILED, CANCELLED or
       INTERRUPTED, the store refused an admin command (no such user, a taken email),
       or an unexpected error
  2    usage error: unknown command or flag, missing file, bad --var or id, NATS unreachable
  3    wf run, wf rerun: --timeout elapsed before the end (the execution goes on in the service)
  130  wf run, wf rerun: Ctrl-C before the end (the execution goes on in the service)`;

type Command = (argv: string[]) => Promise<number>;

/**
 * Each command's modules are loaded when it runs: `wf --help` or a mistyped command does not load
 * NATS, the store and every other command (the bundle splits at these imports).
 */
const COMMANDS: Record<string, () => Promise<Command>> = {
  validate: async () => (await import("./validate")).validateCommand,
  run: async () => (await import("./run")).runCommand,
  rerun: async () => (await import("./rerun")).rerunCommand,
  debug: async () => (await import("./debug/command")).debugCommand,
  tail: async () => (await import("./tail")).tailCommand,
  workflow: async () => (await import("./workflows/index")).workflowCommand,
  admin: async () => (await import("./admin/index")).adminCommand,
};

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === "--help" || name === "-h" || name === "help") {
    console.log(HELP);
    return EXIT.ok;
  }
  if (name === undefined) {
    console.error(HELP);
    return EXIT.usage;
  }
  const load = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (load === undefined)
    throw new UsageError(`unknown command \`${name}\`; commands: ${Object.keys(COMMANDS).join(", ")} (see wf --help)`);
  return (await load())(rest);
}

let code: number;
try {
  code = await main(process.argv.slice(2));
} catch (err) {
  if (err instanceof UsageError) {
    console.error(`wf: ${err.message}`);
    code = EXIT.usage;
  } else if (err instanceof WfError) {
    // The store or an account rule refused: the message says what and why.
    console.error(`wf: ${err.message}`);
    code = EXIT.failed;
  } else {
    console.error("wf: unexpected error:", err);
    code = EXIT.failed;
  }
}
// Explicit: a lingering handle (a NATS reconnect timer, a store driver) must not keep the CLI alive.
process.exit(code);
