import type { Outcome } from "./step-kind";

/**
 * Runs `count` runs (a foreach's items, a parallel's branches), `width` at once, the next as one ends; none starts
 * after one failed (those under way run to their end). The outcomes by index: a run never started leaves a hole.
 */
export async function runBounded(
  count: number,
  width: number,
  run: (index: number) => Promise<Outcome>,
): Promise<Outcome[]> {
  const results: Outcome[] = new Array(count);
  let next = 0;
  let failed = false;
  const worker = async (): Promise<void> => {
    while (!failed && next < count) {
      const i = next++;
      const r = await run(i);
      results[i] = r;
      if (r.kind === "failed") failed = true;
    }
  };
  await Promise.all(Array.from({ length: width }, worker));
  return results;
}
