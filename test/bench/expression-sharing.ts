import { waitFor } from "@wf/testing";
import { evaluateExpression, type ExpressionContext } from "@wf/shared/expressions";
import { round } from "./stats";
import type { Progress } from "./suite";

export interface ExpressionSharingSizes {
  /** Light expressions sent at once in each throughput run. */
  light: number;
  /** Owners the second throughput run spreads them over (the first: one owner). */
  owners: number;
  /** One owner's heavy expressions sent at once, as a foreach of heavy transforms sends them. */
  flood: number;
  /** Floods, each with another owner's light expression sent once the flood's first answers are in. */
  rounds: number;
}

export const EXPRESSION_SHARING_SIZES: ExpressionSharingSizes = { light: 10_000, owners: 2_000, flood: 50, rounds: 3 };
export const EXPRESSION_SHARING_QUICK_SIZES: ExpressionSharingSizes = {
  light: 2_000,
  owners: 400,
  flood: 8,
  rounds: 1,
};

/** The issue's: one line that still needs JSONata (not a bare path), and a heavy transform under the deadline. */
export const LIGHT_EXPRESSION = "vars.x + 1";
export const HEAVY_EXPRESSION = "$sum([1..5500000]) + item";

export interface ExpressionSharingResult {
  sizes: ExpressionSharingSizes;
  /** Light expressions answered per second, all sent at once. */
  lightPerSec: { oneOwner: number; manyOwners: number };
  /** Per flood: how long the other owner's light expression took, and the flood itself. */
  floods: { lightMs: number; floodMs: number; heavyFailed: number }[];
}

const context = (x: number, item?: number): ExpressionContext => ({
  vars: { x },
  steps: {},
  execution: { id: "bench" },
  secrets: {},
  item,
});

/**
 * The expression pool shared by owners, through the executor's entry point: the throughput of
 * many light expressions (one owner's, and many owners'), and how long one owner's light
 * expression waits while another owner floods the pool with heavy ones.
 */
export async function runExpressionSharing(
  sizes: ExpressionSharingSizes,
  opts: { progress?: Progress } = {},
): Promise<ExpressionSharingResult> {
  const progress = opts.progress ?? (() => undefined);
  // Hosts started before anything is timed.
  await Promise.all([
    evaluateExpression(LIGHT_EXPRESSION, context(0), "warm-a"),
    evaluateExpression(LIGHT_EXPRESSION, context(0), "warm-b"),
  ]);

  progress(`expression sharing: ${sizes.light} light expressions at once, of one owner, then of ${sizes.owners}`);
  const oneOwner = await lightPerSec(sizes.light, () => "one");
  const manyOwners = await lightPerSec(sizes.light, (i) => `owner-${i % sizes.owners}`);

  const floods: ExpressionSharingResult["floods"] = [];
  for (let i = 1; i <= sizes.rounds; i++) {
    progress(
      `expression sharing: ${sizes.flood} heavy expressions of one owner at once, and another owner's light one (${i}/${sizes.rounds})`,
    );
    const floodStart = performance.now();
    let settled = 0;
    let heavyFailed = 0;
    const flood = Array.from({ length: sizes.flood }, (_, item) =>
      evaluateExpression(HEAVY_EXPRESSION, context(0, item), "heavy").then(
        () => void settled++,
        () => void (settled++, heavyFailed++),
      ),
    );
    await waitFor(() => settled >= 2, { timeoutMs: 60_000, what: "the flood's first answers" });
    const lightStart = performance.now();
    await evaluateExpression(LIGHT_EXPRESSION, context(1), "light");
    const lightMs = round(performance.now() - lightStart);
    await Promise.all(flood);
    floods.push({ lightMs, floodMs: round(performance.now() - floodStart), heavyFailed });
  }
  return { sizes, lightPerSec: { oneOwner, manyOwners }, floods };
}

async function lightPerSec(n: number, ownerOf: (i: number) => string): Promise<number> {
  const started = performance.now();
  await Promise.all(Array.from({ length: n }, (_, i) => evaluateExpression(LIGHT_EXPRESSION, context(i), ownerOf(i))));
  return Math.round((n / (performance.now() - started)) * 1000);
}

export function renderExpressionSharing(r: ExpressionSharingResult): string {
  const failed = r.floods.reduce((n, f) => n + f.heavyFailed, 0);
  return [
    `Expression pool shared by owners (through evaluateExpression)`,
    `  ${r.sizes.light} light expressions (\`${LIGHT_EXPRESSION}\`) at once: one owner's ${r.lightPerSec.oneOwner}/s, ${r.sizes.owners} owners' ${r.lightPerSec.manyOwners}/s`,
    `  one owner's ${r.sizes.flood} heavy expressions (\`${HEAVY_EXPRESSION}\`) at once, another owner's light one sent after the first 2 answers:`,
    `    light one waited ${r.floods.map((f) => `${Math.round(f.lightMs)}`).join(", ")} ms; floods took ${r.floods.map((f) => (f.floodMs / 1000).toFixed(1)).join(", ")} s; ${failed} of ${r.sizes.flood * r.floods.length} heavy failed`,
  ].join("\n");
}
