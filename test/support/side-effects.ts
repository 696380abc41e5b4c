import type { Server } from "node:http";
import { createServer } from "node:http";
import { onTestFinished } from "vitest";
import { SIDE_EFFECTS_HOST } from "./egress-allowance";

/**
 * Where the code steps of a test leave what they did, to be counted by the test: sandboxed
 * steps share no file with the host, so they tell an HTTP server on a loopback address of the
 * host that the test's egress allowance (EGRESS_TEST_ALLOWANCE) lets them reach.
 * `POST <url>/<key>` appends the body as a line and answers the number of lines now kept.
 */
export interface SideEffects {
  /** For the step: its `network: { allow }` entry and the URL it posts to. */
  allow: string;
  url: string;
  lines(key: string): string[];
  /** When each of those lines arrived (Date.now()). */
  arrivals(key: string): number[];
}

export async function sideEffects(): Promise<SideEffects> {
  const kept = new Map<string, string[]>();
  const arrived = new Map<string, number[]>();
  const server: Server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
    req.on("end", () => {
      const key = decodeURIComponent((req.url ?? "/").slice(1));
      const lines = kept.get(key) ?? [];
      if (req.method === "POST") {
        lines.push(body.trim());
        arrived.set(key, [...(arrived.get(key) ?? []), Date.now()]);
      }
      kept.set(key, lines);
      res.end(String(lines.length));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, SIDE_EFFECTS_HOST, resolve));
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const port = (server.address() as { port: number }).port;
  return {
    allow: `${SIDE_EFFECTS_HOST}:${port}`,
    url: `http://${SIDE_EFFECTS_HOST}:${port}`,
    lines: (key) => kept.get(key) ?? [],
    arrivals: (key) => arrived.get(key) ?? [],
  };
}

/**
 * A Python step (YAML, indented as a list item of `steps`) that tells the sink under `key` each
 * time it runs, then takes 1.5 s: long enough for a test to kill or stop its executor mid-way.
 */
export function slowRecordedStep(fx: SideEffects, name: string, key: string, output: string, seconds = 1.5): string {
  return `  - name: ${name}
    type: code
    language: python
    network: { allow: ["${fx.allow}"] }
    code: |
      import time, urllib.request
      urllib.request.urlopen(urllib.request.Request("${fx.url}/${key}", data=b"run", method="POST")).read()
      time.sleep(${seconds})
      print('${output}')`;
}
