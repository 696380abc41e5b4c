/** One sample of Prometheus's text format: `name{labels} value`. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of an ops listener's `/metrics`. */
export async function scrape(base: string): Promise<Sample[]> {
  const res = await fetch(`${base}/metrics`);
  if (res.status !== 200) throw new Error(`/metrics answered ${res.status}: ${await res.text()}`);
  return parseSamples(await res.text());
}

export function parseSamples(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`not a sample: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, k, v] of (m[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[k!] = v!;
    samples.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return samples;
}

/** The value of the sample named `name` whose labels are exactly `labels`; undefined when there is none. */
export function valueOf(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  const wanted = Object.entries(labels);
  return samples.find(
    (s) =>
      s.name === name && Object.keys(s.labels).length === wanted.length && wanted.every(([k, v]) => s.labels[k] === v),
  )?.value;
}

/** The labels of `nodejs_version_info` for the Node running the tests (and the services they start). */
const [major, minor, patch] = process.version.slice(1).split(".") as [string, string, string];
export const THIS_NODE = { version: process.version, major, minor, patch };

export interface Readiness {
  status: number;
  body: { status: string; checks: Record<string, string> };
}

export async function readyz(base: string): Promise<Readiness> {
  const res = await fetch(`${base}/readyz`);
  return { status: res.status, body: (await res.json()) as Readiness["body"] };
}
