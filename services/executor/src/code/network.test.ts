import type { Server } from "node:http";
import { createServer } from "node:http";
import { networkInterfaces } from "node:os";
import { EgressAllowList } from "@wf/shared/config";
import { runnerBundles } from "@wf/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CodeRunner } from "./index";
import { createCodeRunner } from "./index";
import { DEFAULT_SANDBOX_SETTINGS } from "./sandbox-settings";
import { step } from "./testing/processes";

/** A Python step that GETs each URL through whatever proxy its environment names, and says what it got. */
function fetchAll(urls: string[]): string {
  return `
import json, urllib.request, urllib.error
seen = {}
for url in ${JSON.stringify(urls)}:
    try:
        seen[url] = urllib.request.urlopen(url, timeout=10).read().decode()
    except urllib.error.HTTPError as e:
        seen[url] = f"HTTP {e.code}"
    except Exception as e:
        seen[url] = type(e).__name__
print(json.dumps(seen))`;
}

describe("the sandbox of code steps: the network", () => {
  let runner: CodeRunner;
  const servers: Array<{ server: Server; url: string; hits: number }> = [];
  beforeAll(async () => {
    // The operator allows a loopback address of the host (as a test must, to reach its own
    // servers); the rest of the default refusals hold. 127.0.0.2, as localhost and 127.0.0.1 are
    // the step's own loopback (NO_PROXY), not the host's.
    runner = await createCodeRunner({
      pool: 1,
      ...runnerBundles(),
      sandbox: { ...DEFAULT_SANDBOX_SETTINGS, egressAllow: EgressAllowList.parse("127.0.0.2/32") },
    });
    for (const name of ["first", "second"]) {
      const entry = { server: createServer(), url: "", hits: 0 };
      entry.server.on("request", (_req, res) => {
        entry.hits += 1;
        res.end(`hello from ${name}`);
      });
      await new Promise<void>((resolve) => entry.server.listen(0, "127.0.0.2", resolve));
      entry.url = `http://127.0.0.2:${(entry.server.address() as { port: number }).port}/`;
      servers.push(entry);
    }
  });
  afterAll(async () => {
    await runner.close();
    for (const { server } of servers) server.close();
  });

  it("has none without `network`: not even the host's loopback, no name resolves", async () => {
    const [first] = servers;
    const code = `
import json, socket
seen = {}
try:
    socket.create_connection(("127.0.0.2", ${new URL(first!.url).port}), timeout=5)
    seen["loopback"] = "connected"
except OSError as e:
    seen["loopback"] = type(e).__name__
try:
    socket.getaddrinfo("example.com", 443)
    seen["dns"] = "resolved"
except OSError as e:
    seen["dns"] = type(e).__name__
print(json.dumps(seen))`;
    expect(await runner.run(step("python", code))).toMatchObject({
      ok: true,
      output: { loopback: "ConnectionRefusedError", dns: "gaierror" },
    });
    expect(first!.hits).toBe(0);
  });

  it("goes out only through the egress proxy with `network: true`, which allows what the operator allows", async () => {
    const [first, second] = servers;
    const result = await runner.run(step("python", fetchAll([first!.url, second!.url]), { network: true }));
    expect(result).toMatchObject({
      ok: true,
      output: { [first!.url]: "hello from first", [second!.url]: "hello from second" },
    });
    expect(first!.hits).toBe(1);
  });

  it("is narrowed to `network.allow`, and every refusal is in the step's log", async () => {
    const [first, second] = servers;
    const before = second!.hits;
    const allow = [`127.0.0.2:${new URL(first!.url).port}`];
    const result = await runner.run(step("python", fetchAll([first!.url, second!.url]), { network: { allow } }));
    expect(result).toMatchObject({ ok: true, output: { [first!.url]: "hello from first", [second!.url]: "HTTP 403" } });
    expect(second!.hits).toBe(before);
    expect(result.logs).toContainEqual(
      expect.stringMatching(
        new RegExp(`^\\[network\\] refused 127\\.0\\.0\\.2:${new URL(second!.url).port}: .*network\\.allow`),
      ),
    );
  });

  it("is narrowed by its owner's egress list too: a destination must be in each list", async () => {
    const [first, second] = servers;
    const ownerAllow = [`127.0.0.2:${new URL(first!.url).port}`];
    const result = await runner.run(step("python", fetchAll([first!.url, second!.url]), { network: true, ownerAllow }));
    expect(result).toMatchObject({ ok: true, output: { [first!.url]: "hello from first", [second!.url]: "HTTP 403" } });
    expect(result.logs).toContainEqual(expect.stringMatching(/is not in the owner's egress list$/));
    // With the workflow's list too, only what both hold.
    const both = await runner.run(
      step("python", fetchAll([first!.url]), {
        network: { allow: [`127.0.0.2:${new URL(second!.url).port}`] },
        ownerAllow,
      }),
    );
    expect(both).toMatchObject({ ok: true, output: { [first!.url]: "HTTP 403" } });
  });

  it("refuses private, link-local and the host's own addresses, which the operator did not allow", async () => {
    const own = Object.values(networkInterfaces())
      .flat()
      .find((a) => a && !a.internal && a.family === "IPv4")?.address;
    const targets = [
      "http://10.255.255.1/",
      "http://169.254.169.254/latest/meta-data/",
      ...(own ? [`http://${own}:1/`] : []),
    ];
    const result = await runner.run(step("python", fetchAll(targets), { network: true }));
    expect(result).toMatchObject({ ok: true, output: Object.fromEntries(targets.map((t) => [t, "HTTP 403"])) });
    expect(result.logs.filter((l) => l.startsWith("[network] refused"))).toHaveLength(targets.length);
  });
});
