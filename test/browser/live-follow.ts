import type { Page } from "playwright-core";

/** Records the page's long tasks (over 50 ms of the main thread) from the document's start: for `addInitScript`. */
export const LONG_TASKS = `(() => {
  window.__longTasks = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.__longTasks.push({ start: e.startTime, duration: e.duration });
  }).observe({ type: "longtask", buffered: true });
})()`;

/** The page's clock (`performance.now()`), which its long tasks are timed by. */
export const pageNow = (page: Page) => page.evaluate<number>("performance.now()");

/** The main thread's long tasks since `from` (the page's clock): how many, the longest, and the share of the time blocked. */
export async function blockedSince(page: Page, from: number) {
  const to = await pageNow(page);
  const all = await page.evaluate<Array<{ start: number; duration: number }>>("window.__longTasks");
  const tasks = all.filter((t) => t.start >= from);
  const blockedMs = tasks.reduce((sum, t) => sum + t.duration, 0);
  return {
    seconds: (to - from) / 1000,
    tasks: tasks.length,
    longestMs: Math.max(0, ...tasks.map((t) => t.duration)),
    blockedMs,
    share: blockedMs / (to - from),
  };
}

/**
 * Samples the running step every 100 ms until the page's status badge says completed (at most
 * `maxSamples` times): each running step seen, once, with whether it was in view then.
 */
export async function sampleRunningSteps(
  page: Page,
  sample: () => Promise<{ running: string | null; inView: boolean }>,
  maxSamples: number,
): Promise<Array<{ running: string; inView: boolean }>> {
  const seen: Array<{ running: string; inView: boolean }> = [];
  const badge = page.locator(".page-head .badge").first();
  for (let i = 0; i < maxSamples && (await badge.textContent())?.toLowerCase() !== "completed"; i++) {
    const s = await sample();
    if (s.running !== null && seen.at(-1)?.running !== s.running) seen.push({ running: s.running, inView: s.inView });
    await page.waitForTimeout(100);
  }
  return seen;
}
