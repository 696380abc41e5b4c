import type { KnownItems } from "./preview-context";
import type { PreviewAnswer, PreviewRequest, ShownItem } from "./preview-job";

/**
 * How long one preview may run before its worker is terminated and replaced: long enough for what a person reads in
 * a template, short enough that a runaway costs a core only briefly (a run allows its expressions 1 s).
 */
export const PREVIEW_BOUND_MS = 200;

type Answered = (answer: PreviewAnswer | null) => void;

/** Who asks: the preview at the editor's cursor, or the step panel for its `item`. */
type Lane = "cursor" | "item";

/**
 * Runs an editor's previews in one Web Worker (preview-worker.ts), one at a time, the latest request first: a request
 * not started when another comes in its lane answers null (the cursor's preview and the step panel's item do not
 * displace each other). One still running at PREVIEW_BOUND_MS (counted from its start, not from the worker's load)
 * is answered "took too long", and the worker terminated, wherever it is stuck: the page's thread never evaluates an
 * expression. The worker starts at the first request; sharing it, the preview and the panel read the same item 0 of
 * a foreach, which it evaluates once (preview-job.ts's FirstItems).
 */
export class PreviewRunner {
  private worker: Worker | null = null;
  private ready = false;
  private running: { answered: Answered; timer: number } | null = null;
  /** At most one request of each lane, the newest last. */
  private waiting: { lane: Lane; request: PreviewRequest; answered: Answered }[] = [];

  /** The preview of the expression at the cursor; null when another followed it before it started. */
  preview(request: PreviewRequest): Promise<PreviewAnswer | null> {
    return this.ask("cursor", request);
  }

  /**
   * Item 0 of the innermost of nested foreach steps (their `items` outermost first, as readableOutputs gives them) in
   * the latest run, as the preview has it (with why it may not be the run's); null when not known, or when another was
   * asked before it started.
   */
  async firstItem(items: readonly KnownItems[]): Promise<ShownItem | null> {
    if (items.length === 0) return null;
    const request = {
      expression: "item",
      condition: false,
      field: null,
      context: {},
      itemSteps: [],
      items: [...items],
    };
    return (await this.ask("item", request))?.item ?? null;
  }

  /** Terminates the worker, answering null what it runs and what waits; a later request starts another. */
  stop(): void {
    this.worker?.terminate();
    this.worker = null;
    this.ready = false;
    this.answerWaiting(null);
    if (this.running) clearTimeout(this.running.timer);
    this.running?.answered(null);
    this.running = null;
  }

  private ask(lane: Lane, request: PreviewRequest): Promise<PreviewAnswer | null> {
    return new Promise((answered) => {
      this.waiting.find((w) => w.lane === lane)?.answered(null);
      this.waiting = [...this.waiting.filter((w) => w.lane !== lane), { lane, request, answered }];
      this.next();
    });
  }

  private answerWaiting(answer: PreviewAnswer | null): void {
    for (const { answered } of this.waiting) answered(answer);
    this.waiting = [];
  }

  private next(): void {
    if (this.running || this.waiting.length === 0) return;
    if (this.worker === null) this.start();
    if (!this.ready) return;
    const { request, answered } = this.waiting.pop()!;
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
      // It did not load: the requests waiting for it fail, and only the next one tries again.
      worker.terminate();
      this.worker = null;
      this.answerWaiting(failed);
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
