import { afterAll, beforeAll } from "vitest";
import { newId, type ExecutionEvent, type ExecutionSnapshot } from "@wf/shared/execution";
import { subjects } from "@wf/shared/nats";
import type { NatsServerHandle } from "@wf/testing";
import {
  run,
  startNatsServer,
  startRuntime,
  testConfig,
  waitForStatus,
  type InProcessRuntime,
} from "../../support/runtime";
import { SIDE_EFFECTS_HOST } from "../../support/egress-allowance";
import { LlmTestServer } from "./llm-server";

export const OPENAI_KEY = "sk-test-openai-5f1c0a9d";
export const ANTHROPIC_KEY = "sk-ant-test-7b2e4c81";
/**
 * The test servers (MCP and LLM) listen on 127.0.0.1, and what sandboxed MCP servers report to on
 * 127.0.0.2 (127.0.0.1 is their own loopback): addresses the egress policy refuses unless the
 * operator allows them; the rest of loopback stays refused.
 */
export const LOOPBACK_ALLOWANCE = { WF_EGRESS_ALLOW: `127.0.0.1/32,${SIDE_EFFECTS_HOST}/32` } as const;
/** USD per million tokens: `oa-*` models on the OpenAI server, `claude-*` on the Anthropic one. */
export const PRICES = { "oa-*": { input: 2, output: 8 }, "claude-*": { input: 3, output: 15 } } as const;

export interface AiEnv {
  nats: NatsServerHandle;
  rt: InProcessRuntime;
  openai: LlmTestServer;
  anthropic: LlmTestServer;
}

/**
 * A nats-server, the executor (with its scheduler and approvals) and both test providers, for
 * one test file. Retries back off for a millisecond: the tests prove they happen, not how long.
 */
export function useAiEnv(env: Record<string, string> = {}): () => AiEnv {
  let ctx: AiEnv | undefined;
  beforeAll(async () => {
    const [nats, openai, anthropic] = await Promise.all([
      startNatsServer(),
      LlmTestServer.start("openai"),
      LlmTestServer.start("anthropic"),
    ]);
    const providers = [
      {
        name: "test-openai",
        protocol: "openai",
        baseUrl: openai.baseUrl,
        models: ["oa-*"],
        apiKey: OPENAI_KEY,
        retryBaseMs: 1,
        maxRetries: 2,
      },
      {
        name: "test-anthropic",
        protocol: "anthropic",
        baseUrl: anthropic.baseUrl,
        models: ["claude-*"],
        apiKey: ANTHROPIC_KEY,
        retryBaseMs: 1,
        maxRetries: 2,
      },
    ];
    const rt = await startRuntime(
      testConfig(nats, {
        WF_LLM_PROVIDERS: JSON.stringify(providers),
        WF_LLM_PRICES: JSON.stringify(PRICES),
        WF_SECRETS_KEY: "test-secrets-key-0123456789abcdef0123",
        ...LOOPBACK_ALLOWANCE,
        ...env,
      }),
    );
    ctx = { nats, rt, openai, anthropic };
  });
  afterAll(async () => {
    await ctx?.rt.stop();
    await Promise.all([ctx?.openai.close(), ctx?.anthropic.close()]);
    await ctx?.nats.stop();
  });
  return () => {
    if (!ctx) throw new Error("the AI test environment is not started yet");
    return ctx;
  };
}

/** A model id of its own for one test, served by the OpenAI (`oa`) or Anthropic (`claude`) server. */
export function model(family: "oa" | "claude" = "oa"): string {
  return `${family}-${newId()}`;
}

export async function runToEnd(
  env: AiEnv,
  yaml: string,
  opts: Parameters<typeof run>[2] = {},
): Promise<ExecutionSnapshot> {
  const id = await run(env.rt.platform, yaml, opts);
  return waitForStatus(env.rt.platform, id);
}

/** Every event of an execution on its subjects, the terminal one last. */
export async function eventsOf(env: AiEnv, executionId: string): Promise<ExecutionEvent[]> {
  const consumer = await env.rt.platform.js.consumers.get(`${env.rt.ns}_EVT`, {
    filter_subjects: subjects(env.rt.ns).eventFilter({ executionId }),
  });
  const events: ExecutionEvent[] = [];
  for await (const m of await consumer.consume()) {
    const e = JSON.parse(m.string()) as ExecutionEvent;
    events.push(e);
    if (["exec_completed", "exec_failed", "exec_cancelled", "exec_interrupted"].includes(e.type)) break;
  }
  return events;
}

/** USD of some tokens of a model family at the test prices. */
export function priced(family: "oa" | "claude", tokens: { prompt: number; completion: number }): number {
  const p = PRICES[`${family}-*`];
  return (tokens.prompt * p.input + tokens.completion * p.output) / 1_000_000;
}
