import { WfError } from "../errors/index";

/**
 * Runs a service until SIGINT/SIGTERM, then stops it. A start-up failure prints its message
 * (a bad variable is named) and exits non-zero.
 */
export async function runUntilSignal(name: string, start: () => Promise<() => Promise<void>>): Promise<void> {
  let stop: () => Promise<void>;
  try {
    stop = await start();
  } catch (err) {
    // A configuration error says what to fix; anything else is unexpected, and its stack says where.
    const msg = err instanceof WfError ? err.message : err instanceof Error ? (err.stack ?? err.message) : String(err);
    process.stderr.write(`[wf ${name}] cannot start: ${msg}\n`);
    process.exit(1);
  }
  let stopping = false;
  const onSignal = (sig: string) => {
    if (stopping) process.exit(1);
    stopping = true;
    process.stderr.write(`[wf ${name}] ${sig}: stopping\n`);
    stop().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`[wf ${name}] error while stopping: ${String(err)}\n`);
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", () => onSignal("SIGINT"));
  process.on("SIGTERM", () => onSignal("SIGTERM"));
}
