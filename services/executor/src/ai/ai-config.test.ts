import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "@wf/shared/config";
import { ConfigError } from "@wf/shared/errors";
import { LlmGateway } from "./gateway";
import { costOf, priceOf } from "./pricing";
import { retryAfterMs } from "./providers/http";

const PROVIDER = { name: "p", protocol: "openai", baseUrl: "http://127.0.0.1:9/v1", apiKey: "sk-inline-secret-value" };

describe("WF_LLM_PROVIDERS and WF_LLM_PRICES", () => {
  it("take inline JSON or a file, with defaults filled in", async () => {
    const dir = await mkdtemp(join(tmpdir(), "wf-llm-config-"));
    try {
      const file = join(dir, "providers.json");
      await writeFile(file, JSON.stringify([PROVIDER]));
      const fromFile = loadConfig({ WF_LLM_PROVIDERS: file, WF_LLM_PRICES: '{"gpt-*": {"input": 1, "output": 2}}' });
      expect(fromFile.WF_LLM_PROVIDERS).toEqual([
        {
          ...PROVIDER,
          headers: {},
          query: {},
          structuredOutput: true,
          timeoutMs: 120_000,
          maxRetries: 3,
          retryBaseMs: 500,
          maxRetryDelayMs: 30_000,
        },
      ]);
      expect(fromFile.WF_LLM_PRICES).toEqual({ "gpt-*": { input: 1, output: 2 } });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("a bad value stops start-up naming the variable, without echoing a key", () => {
    const bad = JSON.stringify([{ ...PROVIDER, protocol: "grpc" }]);
    let err: unknown;
    try {
      loadConfig({ WF_LLM_PROVIDERS: bad });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toContain("WF_LLM_PROVIDERS=(hidden)");
    expect((err as Error).message).not.toContain("sk-inline-secret-value");
    expect(() => loadConfig({ WF_LLM_PRICES: "{not json" })).toThrow(/WF_LLM_PRICES=.*is not valid JSON/);
    expect(() => loadConfig({ WF_LLM_PRICES: "/no/such/prices.json" })).toThrow(
      /WF_LLM_PRICES=.*neither inline JSON nor a readable file/,
    );
  });

  it("a provider whose key variable is unset stops the executor's start", () => {
    const config = loadConfig({
      WF_LLM_PROVIDERS: JSON.stringify([{ ...PROVIDER, apiKey: undefined, apiKeyEnv: "WF_TEST_UNSET_KEY" }]),
    });
    expect(() => LlmGateway.fromConfig(config, {})).toThrow(
      /provider p takes its key from WF_TEST_UNSET_KEY, which is not set/,
    );
  });
});

describe("prices", () => {
  it("an exact model entry wins over patterns; an unknown model costs nothing", () => {
    const table = { "gpt-*": { input: 1, output: 2 }, "gpt-4o": { input: 5, output: 15 } };
    expect(priceOf(table, "gpt-4o")).toEqual({ input: 5, output: 15 });
    expect(priceOf(table, "gpt-4o-mini")).toEqual({ input: 1, output: 2 });
    expect(priceOf(table, "llama3")).toBeNull();
    expect(
      costOf({ promptTokens: 1_000_000, completionTokens: 500_000, totalTokens: 1_500_000 }, priceOf(table, "gpt-4o")),
    ).toBe(12.5);
    expect(costOf({ promptTokens: 10, completionTokens: 10, totalTokens: 20 }, null)).toBe(0);
  });
});

describe("Retry-After", () => {
  it("reads retry-after-ms, seconds and HTTP dates", () => {
    const now = Date.UTC(2030, 0, 1);
    expect(retryAfterMs(new Headers({ "retry-after-ms": "250" }), now)).toBe(250);
    expect(retryAfterMs(new Headers({ "retry-after": "2" }), now)).toBe(2000);
    expect(retryAfterMs(new Headers({ "retry-after": new Date(now + 5000).toUTCString() }), now)).toBe(5000);
    expect(retryAfterMs(new Headers({ "retry-after": "soon" }), now)).toBeNull();
    expect(retryAfterMs(new Headers(), now)).toBeNull();
  });
});
