import { WfError } from "../errors/index";

/**
 * Runs a service until SIGINT/SIGTERM, then stops it. A start-up failure prints its message
 * (a bad variable is named) and exits non-zero. A signal during start-up stops the service as
 * soon as it has started, so that what it started (an embedded nats-server, runners) is stopped
 * too; a second signal exits at once, as it does while stopping.
 */
export async function runUntilSignal(name: string, start: () => Promise<() => Promise<void>>): Promise<void> {
  let stop: (() => Promise<void>) | undefined;
  let signalled = false;
  const stopNow = (): void => {
    stop!().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`[wf ${name}] error while stopping: ${String(err)}\n`);
        process.exit(1);
      },
    );
  };
  const onSignal = (sig: string): void => {
    if (signalled) process.exit(1);
    signalled = true;
    process.stderr.write(`[wf ${name}] ${sig}: stopping${stop ? "" : " once started (again to exit now)"}\n`);
    if (stop) stopNow();
  };
  // Before start-up, not after: a signal then would end the process by its default action, leaving what it started.
  process.on("SIGINT", () => onSignal("SIGINT"));
  process.on("SIGTERM", () => onSignal("SIGTERM"));
  try {
    stop = await start();
  } catch (err) {
    // A configuration error says what to fix; anything else is unexpected, and its stack says where.
    const msg = err instanceof WfError ? err.message : err instanceof Error ? (err.stack ?? err.message) : String(err);
    process.stderr.write(`[wf ${name}] cannot start: ${msg}\n`);
    process.exit(1);
  }
  if (signalled) stopNow();
}
