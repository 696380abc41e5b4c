import { fork, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { serialize } from "node:v8";

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

interface Job {
  expression: string;
  /** The context, serialised once (v8): the host hands these bytes to its thread as they are. */
  context: Buffer;
  resolve(value: unknown): void;
  reject(failure: EvalFailure): void;
}

interface Slot {
  child: ChildProcess;
  ready: boolean;
  /** Jobs sent to the host and not answered yet, in its order: the first is the one it runs. */
  jobs: Job[];
  /** When the first job started running, about (performance.now()). */
  headSince: number;
  /** Kills a host that stops answering; re-armed at each answer while it has jobs. */
  timer: NodeJS.Timeout | undefined;
}

type Message = { ready: true } | { ok: true; json?: string } | { ok: false; message: string; position?: number };

const HOST = fileURLToPath(new URL("./eval-host.mjs", import.meta.url));
/** Jobs queued in one host at most: enough to keep it busy between the service's turns. */
const MAX_JOBS_PER_HOST = 16;
/** A host whose job has run this long gets no more jobs queued behind it until it answers. */
const SLOW_MS = 50;

/**
 * Evaluates expressions in a few host processes (eval-host.mjs). Each host runs its jobs one at a
 * time in the order sent, and enforces the deadline, counted from the moment it starts a job (not
 * the wait before), by terminating and replacing the thread that evaluates: the runaway job fails,
 * the ones queued behind it run on the new thread. A new job goes to an idle host; when every
 * host is busy, another one starts (up to the pool's size) and takes it; at full size it queues
 * behind the shortest queue, unless that host's current job has already run for SLOW_MS: then it
 * waits here for the first host to answer. A host that dies (an expression exhausted its
 * memory) or stops answering for twice the deadline is killed and replaced: the job it was running
 * fails, the ones queued behind it go to another host.
 *
 * Processes around the threads: a thread that exhausts its heap with one large allocation can
 * abort its whole process (Node's resourceLimits are best effort), and in the service's process
 * that would take every execution of every tenant with it. Threads inside the host: terminating
 * one costs nothing here, where starting a process blocks this thread while it forks (tens of ms
 * under load).
 */
export class EvalPool {
  private readonly slots: Slot[] = [];
  private readonly waiting: Job[] = [];
  private closed = false;

  constructor(private readonly opts: EvalPoolOptions) {}

  /** Rejects with an EvalFailure. `context` must be cloneable (JSON data is). */
  evaluate(expression: string, context: unknown): Promise<unknown> {
    let bytes: Buffer;
    try {
      bytes = serialize(context);
    } catch (err) {
      return Promise.reject({ message: err instanceof Error ? err.message : String(err) });
    }
    return new Promise((resolve, reject) => {
      if (this.closed) return reject({ message: "expression pool closed" });
      this.waiting.push({ expression, context: bytes, resolve, reject });
      this.dispatch();
    });
  }

  /** Stops every host; jobs still waiting or running fail. */
  close(): void {
    this.closed = true;
    const failure = { message: "expression pool closed" };
    for (const slot of [...this.slots]) this.retire(slot, failure);
    for (const job of this.waiting.splice(0)) job.reject(failure);
  }

  private dispatch(): void {
    while (this.waiting.length > 0) {
      const ready = this.slots.filter((s) => s.ready);
      const idleHost = ready.find((s) => s.jobs.length === 0);
      if (idleHost) {
        this.send(idleHost, this.waiting.shift()!);
        continue;
      }
      if (ready.length === this.slots.length && this.slots.length < this.opts.size) this.spawn();
      // A host starting takes the next job as soon as it is ready.
      if (ready.length < this.slots.length) return;
      const now = performance.now();
      let shortest: Slot | undefined;
      for (const s of ready) {
        if (s.jobs.length < MAX_JOBS_PER_HOST && now - s.headSince < SLOW_MS && (!shortest || s.jobs.length < shortest.jobs.length)) shortest = s;
      }
      if (!shortest) return;
      this.send(shortest, this.waiting.shift()!);
    }
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
    const slot: Slot = { child, ready: false, jobs: [], headSince: 0, timer: undefined };
    child.on("message", (m: Message) => this.receive(slot, m));
    child.on("error", (err) => this.retire(slot, { message: `expression host failed: ${err.message}` }));
    child.on("exit", (code, signal) => {
      // V8 aborts the process when its thread's heap is exhausted past what Node can stop.
      const why = signal === "SIGABRT" ? `it needed more than ${maxHeapMb} MB of memory` : `its expression host stopped (${signal ?? `exit code ${code}`})`;
      this.retire(slot, { message: why });
    });
    this.slots.push(slot);
  }

  private send(slot: Slot, job: Job): void {
    slot.child.send({ expression: job.expression, context: job.context });
    slot.jobs.push(job);
    if (slot.jobs.length === 1) {
      slot.headSince = performance.now();
      busy(slot.child);
      this.watch(slot);
    }
  }

  private receive(slot: Slot, m: Message): void {
    if ("ready" in m) {
      slot.ready = true;
      idle(slot.child);
      return this.dispatch();
    }
    const job = slot.jobs.shift();
    clearTimeout(slot.timer);
    if (slot.jobs.length > 0) {
      slot.headSince = performance.now();
      this.watch(slot);
    } else {
      idle(slot.child);
    }
    if (m.ok) job?.resolve(m.json === undefined ? undefined : JSON.parse(m.json));
    else job?.reject({ message: m.message, ...(m.position === undefined ? {} : { position: m.position }) });
    this.dispatch();
  }

  /** The host answers each job by its deadline; this only catches a host that no longer does. */
  private watch(slot: Slot): void {
    const { deadlineMs } = this.opts;
    slot.timer = setTimeout(() => this.retire(slot, { message: `took longer than ${deadlineMs} ms` }), 2 * deadlineMs);
  }

  /** Takes the host out of the pool and kills it: its running job fails, the others wait again. */
  private retire(slot: Slot, failure: EvalFailure): void {
    const i = this.slots.indexOf(slot);
    if (i < 0) return;
    this.slots.splice(i, 1);
    clearTimeout(slot.timer);
    slot.child.kill("SIGKILL");
    const [running, ...queued] = slot.jobs;
    running?.reject(failure);
    if (this.closed) {
      for (const job of queued) job.reject(failure);
      return;
    }
    this.waiting.unshift(...queued);
    if (!slot.ready) {
      // It died starting up: the next would likely too, so the jobs waiting fail rather than
      // start host after host.
      for (const job of this.waiting.splice(0)) job.reject({ message: `could not start an expression host: ${failure.message}` });
      return;
    }
    // Replace it now, so that the next job does not wait for a host to start.
    this.spawn();
    this.dispatch();
  }
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
