// An expression host: a child process of the service's expression pool (eval-pool.ts). It runs
// the expressions it is sent in its thread (eval-thread.mjs), one at a time in the order they
// came, and answers in that order; jobs come, and answers go, several to a message (one per turn
// of either event loop). The pool may take back the jobs not started (`withdraw`). It enforces
// the deadline itself: a thread still evaluating at the deadline is terminated and replaced here,
// failing that expression only, so a runaway costs the service no process start. An expression
// that exhausts the thread's memory can abort this process (Node's heap limits for threads are
// best effort), never the service. Plain JS: it runs without tsx.
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
/** Answers not sent yet: those of one turn of the event loop go in one message. */
let answers = [];

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
    if (m.loaded) return restartDeadline();
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

/** The thread loaded what its job needs (Ajv, at its first schema) before starting it: the deadline counts from now. */
function restartDeadline() {
  clearTimeout(deadline);
  startedAt = performance.now();
  deadline = setTimeout(() => replace(`took longer than ${deadlineMs} ms`), deadlineMs);
}

function answer(m) {
  clearTimeout(deadline);
  jobs.shift();
  running = false;
  reply({ ...m, ms: performance.now() - startedAt });
  next();
}

function reply(m) {
  if (answers.length === 0) setImmediate(sendAnswers);
  answers.push(m);
}

function sendAnswers() {
  if (answers.length === 0) return;
  const sent = answers;
  answers = [];
  process.send({ answers: sent });
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
    reply({ ok: false, message: reason, ms: performance.now() - startedAt });
  }
  void old.terminate();
}

process.on("message", (m) => {
  if (m.withdraw) {
    // The pool takes back every job not started, to queue them again in turn: another owner's job waits behind
    // this host's current one only. The answers before are sent first: the pool reads both in order.
    sendAnswers();
    process.send({ withdrawn: jobs.splice(1).length });
    return;
  }
  jobs.push(...m.jobs);
  next();
});
// The service is gone: nothing is left to answer.
process.on("disconnect", () => process.exit(0));
startThread();
