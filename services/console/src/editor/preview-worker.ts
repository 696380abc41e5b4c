/**
 * The expression preview's Web Worker: it evaluates what the editor sends, one request at a time, off the page's
 * thread; preview-runner.ts terminates it when one takes too long, and starts another.
 */
import { previewOf, type PreviewRequest } from "./preview-job";

self.addEventListener("message", (event: MessageEvent<PreviewRequest>) => {
  void previewOf(event.data).then((answer) => self.postMessage({ answer }));
});
// Loading the evaluator is not the expression's time: the runner counts its bound from its request.
self.postMessage({ ready: true });
