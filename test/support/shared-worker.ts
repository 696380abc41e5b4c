// Vitest setup file. Test files share worker processes (isolate: false in vitest.config.ts: one
// module graph per worker, not one per file, was 40 % of the suite's CPU). So each file must leave
// its worker as it found it; this checks what a file could leave behind and names what it left.
import { afterAll, beforeAll, vi } from "vitest";
import { childProcesses, fileListeners, WATCHED_EVENTS } from "./worker-wide";

/** Child processes a file may leave: the process-wide expression pool's hosts (evaluate.ts). */
const PROCESS_WIDE = /eval-host\.mjs/;
/** How long a file's stopped processes may take to be gone after its last hook. */
const EXIT_GRACE_MS = 5_000;

/** The file's child processes: neither the process-wide pool's nor those kept for the worker (worker-wide.ts). */
function children(): Map<number, string> {
  return new Map([...childProcesses()].filter(([, cmd]) => !PROCESS_WIDE.test(cmd)));
}

let env: Record<string, string | undefined>;
let before: Set<number>;
let listeners: number[];

beforeAll(() => {
  env = { ...process.env };
  before = new Set(children().keys());
  listeners = WATCHED_EVENTS.map((e) => fileListeners(e));
});

// Registered first, so it runs after every afterAll of the file itself.
afterAll(async () => {
  const left: string[] = [];
  const changed = [...new Set([...Object.keys(env), ...Object.keys(process.env)])].filter(
    (k) => env[k] !== process.env[k],
  );
  if (changed.length > 0) left.push(`environment variables changed: ${changed.sort().join(", ")}`);
  if (vi.isFakeTimers()) {
    left.push("fake timers still installed (vi.useRealTimers())");
    // The wait below needs the real clock.
    vi.useRealTimers();
  }
  WATCHED_EVENTS.forEach((e, i) => {
    const added = fileListeners(e) - listeners[i]!;
    if (added > 0) left.push(`${added} process '${e}' listener(s) still installed`);
  });
  const deadline = performance.now() + EXIT_GRACE_MS;
  let extra = [...children()].filter(([pid]) => !before.has(pid));
  while (extra.length > 0 && performance.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    extra = [...children()].filter(([pid]) => !before.has(pid));
  }
  for (const [pid, cmd] of extra) left.push(`child process ${pid} still running: ${cmd.slice(0, 160)}`);
  if (left.length > 0)
    throw new Error(`this test file left its worker changed (test files share workers):\n- ${left.join("\n- ")}`);
});
