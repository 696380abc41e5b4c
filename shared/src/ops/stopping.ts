let stopping = false;

/**
 * Marks this process as stopping: `/readyz` answers 503 from now on, so that load balancers and
 * orchestrators stop sending it work while it drains. The first thing a stop does (the
 * services' main.ts call it as their stop begins; a signal handler may call it sooner).
 */
export function markStopping(): void {
  stopping = true;
}

export function isStopping(): boolean {
  return stopping;
}
