import { fork, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { serialize } from "node:v8";
import { FairQueue } from "./fair-queue";
import { OwnerAllowance } from "./owner-allowance";

export interface EvalPoolOptions {
  /** Host processes at most; each is started on first need. */
  size: number;
  /** How long one evaluation may run before its thread is terminated. */
  deadlineMs: number;
  /** JSONata's limit on nested evaluation (deep recursion fails with its own error). */
  maxDepth: number;
  /** Longest result, in characters of JSON, that a host hands back. */
  maxResultChars: number;
  /** Heap of each evaluating thread: a memory bomb ends its thread, or at worst its host, never the service. */
  maxHeapMb: number;
}

/** Why an evaluation failed: JSONata's error (with its position), or the pool's. */
export interface EvalFailure {
  message: string;
  position?: number;
}

/**
 * What a host's thread is sent: an expression and its context, serialised once (v8: the host hands these bytes to its
 * thread as they are); or a step's `output_schema` as JSON, to compile and check an answer by (output-schemas.mjs).
 * The owner's, for the thread's caches (one owner's many entries push out its own).
 */
type Task = { owner: string } & ({ expression: string; context: Buffer } | { schema: string; answer?: string });

interface Job {
  /** Whose it is: owners are served in turn, each within its allowance of hosts. */
  owner: string;
  task: Task;
  resolve(value: unknown): void;
  reject(failure: EvalFailure): void;
}

interface Slot {
  child: ChildProcess;
  ready: boolean;
  /** Jobs sent to the host and not answered yet, in its order: the first is the one it runs. */
  jobs: Job[];
  /** Jobs of `jobs` not written to the host yet: they go together at the end of this turn of the event loop. */
  unsent: Task[];
  /** When the first job started running, about (performance.now()). */
  headSince: number;
  /** Kills a host that stops answering; re-armed at each answer while it has jobs. */
  timer: NodeJS.Timeout | undefined;
  /** Fires once the first job has run SLOW_MS: the jobs behind it may have to be taken back. */
  slowTimer: NodeJS.Timeout | undefined;
  /** The host was asked for the jobs it has not started: none is sent to it until it has answered. */
  withdrawing: boolean;
}

/**
 * An answer says how long its job ran in the host, as the host measured it: this thread may have been busy meanwhile.
 */
type Answer = { ok: true; json?: string; ms: number } | { ok: false; message: string; position?: number; ms: number };
/** Jobs go to a host, and answers come back, several to a message: one write and one read for a turn's worth. */
type Message = { ready: true } | { answers: Answer[] } | { withdrawn: number };

const HOST = fileURLToPath(new URL("./eval-host.mjs", import.meta.url));
/** Jobs queued in one host at most: enough to keep it busy between the service's turns. */
const MAX_JOBS_PER_HOST = 16;
/**
 * A host whose job has run this long gets no more jobs queued behind it until it answers, and gives back those queued
 * while another owner waits; an owner whose job ran this long is held to one job per host (OwnerAllowance).
 */
const SLOW_MS = 50;

/**
 * Evaluates expressions in a few host processes (eval-host.mjs), each running its jobs one at a time,
 * in order, on a thread it replaces at the deadline (counted from the job's start, not the wait).
 * Owners take turns (FairQueue) and may hold only so many jobs in the hosts at once (OwnerAllowance). A host
 * whose job has run SLOW_MS gives back the jobs queued behind it when another owner waits, so that no owner's
 * burst holds another's job behind more than a job per host. How jobs are routed, and why processes around
 * threads (docs/sandbox.md#expression-hosts).
 */
export class EvalPool {
  private readonly slots: Slot[] = [];
  private readonly waiting = new FairQueue<Job>();
  private readonly allowance: OwnerAllowance;
  private closed = false;

  constructor(private readonly opts: EvalPoolOptions) {
    this.allowance = new OwnerAllowance(opts.size, opts.size * MAX_JOBS_PER_HOST, SLOW_MS);
  }

  /**
   * Rejects with an EvalFailure, or with `signal`'s reason when it aborts while the job still waits (a cancelled run's
   * expressions leave the queue, rather than keep every host busy for it). `context` must be cloneable (JSON data is).
   */
  evaluate(expression: string, context: unknown, owner: string, signal?: AbortSignal): Promise<unknown> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    let bytes: Buffer;
    try {
      bytes = serialize(context);
    } catch (err) {
      return Promise.reject({ message: err instanceof Error ? err.message : String(err) });
    }
    return this.run({ owner, expression, context: bytes }, signal);
  }

  /**
   * Compiles `schema` (a step's `output_schema`, as JSON) and, given an `answer`, checks it by the schema: resolves
   * `{ ok: true }` for a schema alone, `{ ok: true, value }` or `{ ok: false, problems }` for an answer; rejects with
   * an EvalFailure when the schema is not a valid JSON Schema or takes longer than the deadline to compile, or as
   * `evaluate` does.
   */
  checkBySchema(schema: string, answer: string | undefined, owner: string, signal?: AbortSignal): Promise<unknown> {
    return this.run({ owner, schema, ...(answer === undefined ? {} : { answer }) }, signal);
  }

  private run(task: Task, signal: AbortSignal | undefined): Promise<unknown> {
    const owner = task.owner;
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      if (this.closed) return reject({ message: "expression pool closed" });
      const leave = () => {
        if (this.waiting.remove(owner, job)) reject(signal!.reason);
      };
      const settled =
        <A>(then: (a: A) => void) =>
        (a: A) => {
          signal?.removeEventListener("abort", leave);
          then(a);
        };
      const job: Job = { owner, task, resolve: settled(resolve), reject: settled(reject) };
      signal?.addEventListener("abort", leave, { once: true });
      this.waiting.push(owner, job);
      this.dispatch();
    });
  }

  /** Stops every host; jobs still waiting or running fail. */
  close(): void {
    this.closed = true;
    const failure = { message: "expression pool closed" };
    for (const slot of [...this.slots]) this.retire(slot, failure);
    for (const job of this.waiting.drain()) job.reject(failure);
  }

  private dispatch(): void {
    for (;;) {
      const host = this.hostForNext();
      if (!host) {
        const now = performance.now();
        for (const slot of this.slots) this.giveBackIfSlow(slot, now);
        return;
      }
      const job = this.waiting.take((owner) => this.allowance.mayAdd(owner));
      if (!job) return;
      this.send(host, job);
    }
  }

  /** The host the next job waiting should go to; none: it waits for an answer or a host's start. */
  private hostForNext(): Slot | undefined {
    if (this.waiting.size === 0) return undefined;
    const ready = this.slots.filter((s) => s.ready);
    const idleHost = ready.find((s) => s.jobs.length === 0);
    if (idleHost) return idleHost;
    if (ready.length === this.slots.length && this.slots.length < this.opts.size) this.spawn();
    // A host starting takes the next job as soon as it is ready.
    if (ready.length < this.slots.length) return undefined;
    const now = performance.now();
    let shortest: Slot | undefined;
    for (const s of ready) {
      if (this.mayQueueBehind(s, now) && (!shortest || s.jobs.length < shortest.jobs.length)) shortest = s;
    }
    return shortest;
  }

  /** Not behind a job that has run SLOW_MS already, nor behind one of an owner whose last job was that slow. */
  private mayQueueBehind(slot: Slot, now: number): boolean {
    return (
      !slot.withdrawing &&
      slot.jobs.length < MAX_JOBS_PER_HOST &&
      now - slot.headSince < SLOW_MS &&
      !slot.jobs.some((j) => this.allowance.slow(j.owner))
    );
  }

  private spawn(): void {
    const { deadlineMs, maxHeapMb, maxDepth, maxResultChars } = this.opts;
    const child = fork(HOST, [JSON.stringify({ deadlineMs, maxHeapMb, maxDepth, maxResultChars })], {
      // Nothing of the service's own flags (loaders, inspector, profiler) or environment: the
      // host needs neither.
      execArgv: [],
      env: {},
      serialization: "advanced",
      stdio: ["ignore", "ignore", "ignore", "ipc"],
    });
    const slot: Slot = {
      child,
      ready: false,
      jobs: [],
      unsent: [],
      headSince: 0,
      timer: undefined,
      slowTimer: undefined,
      withdrawing: false,
    };
    child.on("message", (m: Message) => this.receive(slot, m));
    child.on("error", (err) => this.retire(slot, { message: `expression host failed: ${err.message}` }));
    child.on("exit", (code, signal) => {
      // V8 aborts the process when its thread's heap is exhausted past what Node can stop.
      const why =
        signal === "SIGABRT"
          ? `it needed more than ${maxHeapMb} MB of memory`
          : `its expression host stopped (${signal ?? `exit code ${code}`})`;
      this.retire(slot, { message: why });
    });
    this.slots.push(slot);
  }

  private send(slot: Slot, job: Job): void {
    if (slot.unsent.length === 0) setImmediate(() => this.write(slot));
    slot.unsent.push(job.task);
    slot.jobs.push(job);
    this.allowance.added(job.owner);
    if (slot.jobs.length === 1) {
      slot.headSince = performance.now();
      busy(slot.child);
      this.watch(slot);
    }
  }

  /** Writes the jobs sent to a host this turn, unless it was retired meanwhile (they wait again). */
  private write(slot: Slot): void {
    if (!this.slots.includes(slot) || slot.unsent.length === 0) return;
    const jobs = slot.unsent;
    slot.unsent = [];
    slot.child.send({ jobs });
  }

  private receive(slot: Slot, m: Message): void {
    // A retired host's answers still on their way: its jobs have been dealt with.
    if (!this.slots.includes(slot)) return;
    if ("ready" in m) {
      slot.ready = true;
      idle(slot.child);
      return this.dispatch();
    }
    if ("withdrawn" in m) return this.withdrawn(slot, m.withdrawn);
    for (const answer of m.answers) this.answered(slot, answer);
    this.dispatch();
  }

  private answered(slot: Slot, m: Answer): void {
    const job = slot.jobs.shift()!;
    this.allowance.removed(job.owner, m.ms);
    unwatch(slot);
    if (slot.jobs.length > 0) {
      slot.headSince = performance.now();
      this.watch(slot);
    } else {
      idle(slot.child);
    }
    if (m.ok) job.resolve(m.json === undefined ? undefined : JSON.parse(m.json));
    else job.reject({ message: m.message, ...(m.position === undefined ? {} : { position: m.position }) });
  }

  /**
   * The jobs queued behind a host's first, once it has run SLOW_MS, if another owner's job waits in the pool or among
   * them: a burst sent while its owner's jobs were quick, and turned out heavy, then waits in turn with everyone's.
   * A lone owner's queue stays (its jobs would wait for the same host), as does one already asked for.
   */
  private giveBackIfSlow(slot: Slot, now: number): void {
    if (slot.withdrawing || slot.jobs.length < 2 || now - slot.headSince < SLOW_MS) return;
    const owner = slot.jobs[0]!.owner;
    if (!slot.jobs.some((j) => j.owner !== owner) && !this.waiting.hasOtherThan(owner)) return;
    // The jobs not written yet go first, so that the host's queue is the pool's: it gives back the tail of `jobs`.
    this.write(slot);
    slot.withdrawing = true;
    slot.child.send({ withdraw: true });
  }

  /** The last `count` jobs of the host's were not started: they wait again, ahead of their owners' others. */
  private withdrawn(slot: Slot, count: number): void {
    slot.withdrawing = false;
    const back = slot.jobs.splice(slot.jobs.length - count, count);
    for (const job of back) this.allowance.removed(job.owner, undefined);
    for (const job of back.reverse()) this.waiting.putBack(job.owner, job);
    this.dispatch();
  }

  /**
   * The host answers each job by its deadline; the first timer only catches a host that no longer does. The second
   * looks at the queue behind the job once it has run SLOW_MS.
   */
  private watch(slot: Slot): void {
    const { deadlineMs } = this.opts;
    slot.timer = setTimeout(() => this.retire(slot, { message: `took longer than ${deadlineMs} ms` }), 2 * deadlineMs);
    // By performance.now(), a timer may fire a fraction of a millisecond early.
    slot.slowTimer = setTimeout(
      () => this.giveBackIfSlow(slot, Math.max(performance.now(), slot.headSince + SLOW_MS)),
      SLOW_MS,
    );
  }

  /** Takes the host out of the pool and kills it: its running job fails, the others wait again. */
  private retire(slot: Slot, failure: EvalFailure): void {
    const i = this.slots.indexOf(slot);
    if (i < 0) return;
    this.slots.splice(i, 1);
    slot.unsent = [];
    unwatch(slot);
    slot.child.kill("SIGKILL");
    const [running, ...queued] = slot.jobs;
    if (running) {
      // However long it had run, it ended its host: its owner is back to one job per host.
      this.allowance.removed(running.owner, Infinity);
      running.reject(failure);
    }
    for (const job of queued) this.allowance.removed(job.owner, undefined);
    if (this.closed) {
      for (const job of queued) job.reject(failure);
      return;
    }
    for (const job of queued.reverse()) this.waiting.putBack(job.owner, job);
    if (!slot.ready) {
      // It died starting up: the next would likely too, so the jobs waiting fail rather than
      // start host after host.
      for (const job of this.waiting.drain())
        job.reject({ message: `could not start an expression host: ${failure.message}` });
      return;
    }
    // Replace it now, so that the next job does not wait for a host to start.
    this.spawn();
    this.dispatch();
  }
}

function unwatch(slot: Slot): void {
  clearTimeout(slot.timer);
  clearTimeout(slot.slowTimer);
}

/** An idle host must not keep the service's process alive... */
function idle(child: ChildProcess): void {
  child.unref();
  child.channel?.unref();
}

/** ...a starting or busy one must, until its answer (a script awaiting an expression needs it). */
function busy(child: ChildProcess): void {
  child.ref();
  child.channel?.ref();
}
