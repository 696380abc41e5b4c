// An expression host: a child process of the service's expression pool (eval-pool.ts). It runs
// the expressions it is sent in its thread (eval-thread.mjs), one at a time in the order they
// came, and answers in that order. It enforces the deadline itself: a thread still evaluating at
// the deadline is terminated and replaced here, failing that expression only, so a runaway costs
// the service no process start. An expression that exhausts the thread's memory can abort this
// process (Node's heap limits for threads are best effort), never the service. Plain JS: it runs
// without tsx.
import { Worker } from "node:worker_threads";

const { deadlineMs, maxHeapMb, maxDepth, maxResultChars } = JSON.parse(process.argv[2]);
const THREAD = new URL("./eval-thread.mjs", import.meta.url);

let thread;
let threadReady = false;
/** Jobs in the order they came; the first is the one the thread evaluates, once it is ready. */
const jobs = [];
let running = false;
let deadline;
/** When the running job started (performance.now()): each answer says how long its job ran. */
let startedAt = 0;
let announced = false;

function startThread() {
  threadReady = false;
  const self = new Worker(THREAD, {
    workerData: { maxDepth, maxResultChars },
    resourceLimits: { maxOldGenerationSizeMb: maxHeapMb },
  });
  thread = self;
  self.on("message", (m) => {
    if (self !== thread) return;
    if (m.ready) {
      threadReady = true;
      if (!announced) process.send({ ready: true });
      announced = true;
      return next();
    }
    answer(m);
  });
  self.on("error", (err) => {
    if (self === thread)
      replace(
        err.code === "ERR_WORKER_OUT_OF_MEMORY"
          ? `it needed more than ${maxHeapMb} MB of memory`
          : `the thread evaluating it failed: ${err.message}`,
      );
  });
  self.on("exit", () => {
    if (self === thread) replace("the thread evaluating it stopped");
  });
}

/** Starts the first job when the thread is free: its deadline counts from here. */
function next() {
  if (running || !threadReady || jobs.length === 0) return;
  running = true;
  startedAt = performance.now();
  thread.postMessage(jobs[0]);
  deadline = setTimeout(() => replace(`took longer than ${deadlineMs} ms`), deadlineMs);
}

function answer(m) {
  clearTimeout(deadline);
  jobs.shift();
  running = false;
  process.send({ ...m, ms: performance.now() - startedAt });
  next();
}

/** The thread is stuck or gone: the job it was running (if any) fails, and a new thread takes over. */
function replace(reason) {
  const old = thread;
  const failed = running;
  running = false;
  clearTimeout(deadline);
  startThread();
  if (failed) {
    jobs.shift();
    process.send({ ok: false, message: reason, ms: performance.now() - startedAt });
  }
  void old.terminate();
}

process.on("message", (job) => {
  jobs.push(job);
  next();
});
// The service is gone: nothing is left to answer.
process.on("disconnect", () => process.exit(0));
startThread();
