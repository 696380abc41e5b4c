/**
 * The expression preview's Web Worker: it evaluates what the editor sends, one request at a time, off the page's
 * thread; preview-runner.ts terminates it when one takes too long, and starts another.
 */
import { FirstItems, previewOf, type PreviewRequest } from "./preview-job";

/** Kept for as long as this worker lives: item 0 of each foreach is evaluated once for all its previews. */
const firstItems = new FirstItems();

self.addEventListener("message", (event: MessageEvent<PreviewRequest>) => {
  void previewOf(event.data, firstItems).then((answer) => self.postMessage({ answer }));
});
// Loading the evaluator is not the expression's time: the runner counts its bound from its request.
self.postMessage({ ready: true });
