import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { edgeMetrics } from "@wf/edge";
import { executorMetrics } from "@wf/executor";
import { schedulerMetrics } from "@wf/scheduler";
import { collectDefaultMetrics, consumerMetrics, Registry, type Metric } from "@wf/shared/metrics";

const doc = await readFile(new URL("../../docs/metrics.md", import.meta.url), "utf8");
const dashboard = JSON.parse(
  await readFile(new URL("../../deploy/grafana/wf-dashboard.json", import.meta.url), "utf8"),
) as Dashboard;

interface Dashboard {
  templating: { list: { name: string; type: string; query?: unknown }[] };
  panels: { type: string; title: string; datasource?: { uid?: string }; targets?: { expr: string }[] }[];
}

/** Every metric any process registers: each service's, the consumers' gauges and prom-client's process metrics. */
async function registered(): Promise<{ name: string; type: string; labels: string[] }[]> {
  const registry = new Registry();
  const metrics: Metric[] = [...consumerMetrics, ...edgeMetrics, ...executorMetrics, ...schedulerMetrics];
  for (const metric of metrics) registry.registerMetric(metric);
  collectDefaultMetrics({ register: registry });
  return (await registry.getMetricsAsJSON()).map((m) => ({
    name: m.name,
    type: String(m.type),
    // prom-client keeps a metric's label names on it, though its types do not say so.
    labels: [...((registry.getSingleMetric(m.name) as unknown as { labelNames: string[] }).labelNames ?? [])],
  }));
}

/** The rows of docs/metrics.md's tables: metric, type and labels, the first three cells. */
function documented(): Map<string, { type: string; labels: string[] }> {
  const rows = new Map<string, { type: string; labels: string[] }>();
  for (const [, name, type, labels] of doc.matchAll(/^\| `([a-z0-9_]+)` \| (\w+) \| ([^|]+) \|/gm)) {
    rows.set(name!, {
      type: type!,
      labels: labels!.trim() === "none" ? [] : [...labels!.matchAll(/`(\w+)`/g)].map((l) => l[1]!),
    });
  }
  return rows;
}

describe("docs/metrics.md", () => {
  it("documents every metric a process registers, with its type and labels, and nothing else", async () => {
    const metrics = await registered();
    const rows = documented();
    for (const m of metrics) expect(rows.get(m.name), m.name).toEqual({ type: m.type, labels: m.labels });
    expect([...rows.keys()].sort()).toEqual(metrics.map((m) => m.name).sort());
  });
});

describe("deploy/grafana/wf-dashboard.json", () => {
  /** The metric names a PromQL expression reads: a histogram's series by the histogram's name. */
  const metricsIn = (expr: string) =>
    [...expr.matchAll(/\b((?:wf|process|nodejs)_[a-z0-9_]+)/g)].map((m) => m[1]!.replace(/_(bucket|count|sum)$/, ""));

  it("has a Prometheus data source variable that every panel uses", () => {
    expect(dashboard.templating.list).toContainEqual(
      expect.objectContaining({ name: "datasource", type: "datasource", query: "prometheus" }),
    );
    for (const panel of dashboard.panels.filter((p) => p.type !== "row"))
      expect(panel.datasource?.uid, panel.title).toBe("${datasource}");
  });

  it("reads only documented metrics, and each panel at least one", () => {
    const rows = documented();
    const queries = [
      ...dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => ({ where: p.title, expr: t.expr }))),
      ...dashboard.templating.list.flatMap((v) =>
        v.type === "query" ? [{ where: v.name, expr: JSON.stringify(v.query) }] : [],
      ),
    ];
    expect(queries.length).toBeGreaterThan(0);
    for (const { where, expr } of queries) {
      expect(metricsIn(expr).length, where).toBeGreaterThan(0);
      for (const name of metricsIn(expr)) expect(rows.has(name), `${where}: ${name}`).toBe(true);
    }
    const shown = new Set(queries.flatMap((q) => metricsIn(q.expr)));
    for (const name of [...rows.keys()].filter((n) => n.startsWith("wf_"))) expect(shown, name).toContain(name);
  });
});
