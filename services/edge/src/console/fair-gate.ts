/** A job refused because the gate's queue was full (or it was pushed out of it). */
export class GateFull extends Error {
  constructor() {
    super("the gate's queue is full");
    this.name = "GateFull";
  }
}

interface Job {
  lanes: readonly string[];
  seq: number;
  start(): void;
  refuse(): void;
}

/** A lane's jobs waiting or running, how many of them started, and how many run. */
interface Lane {
  jobs: number;
  started: number;
  running: number;
}

/**
 * Runs at most `concurrency` jobs at once and keeps at most `queueLimit` waiting (past that,
 * GateFull at once). Jobs name their lanes, broadest first; the next to start is the one whose
 * lanes started the fewest since they were idle, and the narrowest lane leaves one slot free, so
 * one client's flood never queues ahead of someone else (docs/webhooks.md#login-throttling).
 */
export class FairGate {
  #running = 0;
  #seq = 0;
  readonly #waiting: Job[] = [];
  readonly #lanes = new Map<string, Lane>();
  readonly #perNarrowestLane: number;

  constructor(
    private readonly concurrency: number,
    private readonly queueLimit: number,
  ) {
    this.#perNarrowestLane = Math.max(1, concurrency - 1);
  }

  run<T>(lanes: readonly string[], work: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const job: Job = {
        lanes,
        seq: this.#seq++,
        start: () => {
          void Promise.resolve()
            .then(work)
            .then(resolve, reject)
            .finally(() => this.#finish(job));
        },
        refuse: () => {
          this.#leave(job);
          reject(new GateFull());
        },
      };
      for (const name of lanes) {
        const lane = this.#lanes.get(name);
        if (lane) lane.jobs += 1;
        else this.#lanes.set(name, { jobs: 1, started: 0, running: 0 });
      }
      if (this.#running < this.concurrency && this.#mayStart(job)) this.#start(job);
      else if (this.#waiting.length < this.queueLimit) this.#waiting.push(job);
      else {
        const last = this.#waiting.reduce<Job | undefined>(
          (a, b) => (a === undefined || this.#before(a, b) ? b : a),
          undefined,
        );
        if (last === undefined || !this.#before(job, last)) job.refuse();
        else {
          this.#waiting.splice(this.#waiting.indexOf(last), 1, job);
          last.refuse();
        }
      }
    });
  }

  /** Whether `a` starts before `b`. */
  #before(a: Job, b: Job): boolean {
    for (let i = 0; i < Math.min(a.lanes.length, b.lanes.length); i++) {
      const diff = this.#started(a.lanes[i]!) - this.#started(b.lanes[i]!);
      if (diff !== 0) return diff < 0;
    }
    return a.seq < b.seq;
  }

  #started(name: string): number {
    return this.#lanes.get(name)?.started ?? 0;
  }

  #mayStart(job: Job): boolean {
    const narrowest = job.lanes.at(-1);
    return narrowest === undefined || this.#lanes.get(narrowest)!.running < this.#perNarrowestLane;
  }

  #start(job: Job): void {
    this.#running += 1;
    for (const name of job.lanes) {
      const lane = this.#lanes.get(name)!;
      lane.started += 1;
      lane.running += 1;
    }
    job.start();
  }

  #finish(job: Job): void {
    this.#running -= 1;
    for (const name of job.lanes) this.#lanes.get(name)!.running -= 1;
    this.#leave(job);
    // A finished job frees its slot, and may free its lane for a job that waited with a slot free.
    while (this.#running < this.concurrency) {
      const next = this.#waiting.reduce<Job | undefined>(
        (a, b) => (this.#mayStart(b) && (a === undefined || this.#before(b, a)) ? b : a),
        undefined,
      );
      if (next === undefined) return;
      this.#waiting.splice(this.#waiting.indexOf(next), 1);
      this.#start(next);
    }
  }

  #leave(job: Job): void {
    for (const name of job.lanes) {
      const lane = this.#lanes.get(name)!;
      lane.jobs -= 1;
      if (lane.jobs === 0) this.#lanes.delete(name);
    }
  }
}
