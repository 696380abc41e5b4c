import type { PreviewAnswer, PreviewRequest } from "./preview-job";

/**
 * How long one preview may run before its worker is terminated and replaced: long enough for what a person reads in
 * a template, short enough that a runaway costs a core only briefly (a run allows its expressions 1 s).
 */
export const PREVIEW_BOUND_MS = 200;

type Answered = (answer: PreviewAnswer | null) => void;

/**
 * Runs previews in a Web Worker of their own (preview-worker.ts), one at a time, the latest request first: a request
 * not started when another comes answers null. One still running at PREVIEW_BOUND_MS (counted from its start, not
 * from the worker's load) is answered "took too long", and the worker terminated, wherever it is stuck: the page's
 * thread never evaluates an expression. The worker starts at the first request.
 */
export class PreviewRunner {
  private worker: Worker | null = null;
  private ready = false;
  private running: { answered: Answered; timer: number } | null = null;
  private waiting: { request: PreviewRequest; answered: Answered } | null = null;
  private closed = false;

  preview(request: PreviewRequest): Promise<PreviewAnswer | null> {
    if (this.closed) return Promise.resolve(null);
    return new Promise((answered) => {
      this.waiting?.answered(null);
      this.waiting = { request, answered };
      this.next();
    });
  }

  destroy(): void {
    this.closed = true;
    this.worker?.terminate();
    this.worker = null;
    this.waiting?.answered(null);
    this.waiting = null;
    if (this.running) clearTimeout(this.running.timer);
    this.running?.answered(null);
    this.running = null;
  }

  private next(): void {
    if (this.closed || this.running || !this.waiting) return;
    if (this.worker === null) this.start();
    if (!this.ready) return;
    const { request, answered } = this.waiting;
    this.waiting = null;
    const timer = window.setTimeout(
      () =>
        this.replace({ kind: "timeout", text: `It took longer than ${PREVIEW_BOUND_MS} ms here, and was stopped.` }),
      PREVIEW_BOUND_MS,
    );
    this.running = { answered, timer };
    this.worker!.postMessage(request);
  }

  private start(): void {
    const worker = new Worker(new URL("./preview-worker.ts", import.meta.url), {
      type: "module",
      name: "expression preview",
    });
    this.worker = worker;
    this.ready = false;
    worker.addEventListener("message", (event: MessageEvent<{ ready?: true; answer?: PreviewAnswer }>) => {
      if (worker !== this.worker) return;
      if (event.data.ready) {
        this.ready = true;
        this.next();
      } else if (event.data.answer) this.finish(event.data.answer);
    });
    worker.addEventListener("error", (event) => {
      event.preventDefault();
      if (worker !== this.worker) return;
      const failed: PreviewAnswer = { kind: "error", text: "The preview could not run here." };
      if (this.ready) return this.replace(failed);
      // It did not load: the request waiting for it fails, and only the next one tries again.
      worker.terminate();
      this.worker = null;
      this.waiting?.answered(failed);
      this.waiting = null;
    });
  }

  private finish(answer: PreviewAnswer): void {
    const running = this.running;
    this.running = null;
    if (running) {
      clearTimeout(running.timer);
      running.answered(answer);
    }
    this.next();
  }

  /** The worker is stuck or broken: what it ran gets `answer`, and the next request a new worker. */
  private replace(answer: PreviewAnswer): void {
    this.worker?.terminate();
    this.worker = null;
    this.ready = false;
    this.finish(answer);
  }
}
