import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import type { Page } from "playwright-core";

const require = createRequire(import.meta.url);
let source: Promise<string> | undefined;

/** One rule axe-core found broken, with where (a few CSS selectors) and the first node's reason. */
export interface AxeFinding {
  rule: string;
  impact: string;
  help: string;
  nodes: number;
  targets: string[];
  summary: string;
}

interface AxeResult {
  violations: {
    id: string;
    impact: string | null;
    help: string;
    nodes: { target: unknown[]; failureSummary?: string }[];
  }[];
}

/**
 * axe-core's WCAG 2.x A and AA rules (and its best practices) run in the page as it is now. The
 * script is evaluated through the DevTools protocol, which the console's strict CSP (no inline
 * script) does not cover. Answers the serious and critical findings only, unless `all`.
 */
export async function axeAudit(page: Page, opts: { all?: boolean } = {}): Promise<AxeFinding[]> {
  source ??= readFile(require.resolve("axe-core/axe.min.js"), "utf8");
  if (!(await page.evaluate<boolean>("typeof window.axe === 'object'"))) await page.evaluate(await source);
  const result = await page.evaluate<AxeResult>(
    `axe.run(document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"] }, resultTypes: ["violations"] })`,
  );
  return result.violations
    .filter((v) => opts.all || v.impact === "serious" || v.impact === "critical")
    .map((v) => ({
      rule: v.id,
      impact: v.impact ?? "",
      help: v.help,
      nodes: v.nodes.length,
      targets: v.nodes.slice(0, 4).map((n) => String(n.target.join(" "))),
      summary: (v.nodes[0]?.failureSummary ?? "").replaceAll("\n", " ").slice(0, 300),
    }));
}
