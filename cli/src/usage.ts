import { parseArgs, type ParseArgsConfig } from "node:util";

/** Exit codes, as `wf --help` documents them. */
export const EXIT = {
  ok: 0,
  failed: 1,
  usage: 2,
  timeout: 3,
  interrupted: 130,
} as const;

/** A mistake in how the CLI was called or set up: reported without a stack trace, exit 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/** `parseArgs`, with its errors (unknown flag, missing value) turned into usage errors. */
export function parseCommandArgs<T extends ParseArgsConfig>(
  command: string,
  config: T,
): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config);
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (typeof code === "string" && code.startsWith("ERR_PARSE_ARGS_")) {
      throw new UsageError(`${(err as Error).message}\nsee: wf ${command} --help`);
    }
    throw err;
  }
}

type Options = NonNullable<ParseArgsConfig["options"]>;
const HELP_FLAG = { help: { type: "boolean", short: "h" } } as const;

/**
 * A command's flags, `-h/--help` added to its own: with it, the command's help is printed and
 * null returned (the command has nothing left to do). A flag error is a usage error naming the command.
 */
export function commandFlags<O extends Options>(
  command: string,
  help: string,
  argv: string[],
  options: O,
  allowPositionals = false,
) {
  const parsed = parseCommandArgs(command, {
    args: argv,
    options: { ...options, ...HELP_FLAG },
    allowPositionals,
    strict: true,
  });
  if ((parsed.values as { help?: boolean }).help) {
    console.log(help);
    return null;
  }
  return parsed;
}
