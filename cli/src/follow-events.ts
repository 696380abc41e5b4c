import type { JetStreamClient } from "@nats-io/jetstream";
import { tailEvents, type TailOptions } from "@wf/shared/client";
import type { ExecutionEvent } from "@wf/shared/execution";

/**
 * Execution events until `signal` aborts. `tailEvents` only sees an abort once its consumer
 * exists, so an abort while it is still being set up (or while no event comes) ends the
 * iteration here instead of waiting on the next event forever.
 */
export async function* followEvents(
  js: JetStreamClient,
  ns: string,
  opts: TailOptions,
  signal: AbortSignal,
): AsyncGenerator<ExecutionEvent> {
  const aborted = new Promise<"aborted">((resolve) => {
    if (signal.aborted) resolve("aborted");
    else signal.addEventListener("abort", () => resolve("aborted"), { once: true });
  });
  const events = tailEvents(js, ns, opts, signal);
  for (;;) {
    const next = await Promise.race([events.next(), aborted]);
    if (next === "aborted" || next.done) return;
    yield next.value;
  }
}
