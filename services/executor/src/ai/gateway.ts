import type { Config, LlmProviderConfig, ModelPrice, PriceTable } from "@wf/shared/config";
import { modelMatches } from "@wf/shared/config";
import { ConfigError } from "@wf/shared/errors";
import { AnthropicProvider } from "./providers/anthropic";
import { OpenAiProvider } from "./providers/openai";
import { ProviderError, type ChatRequest, type ChatResponse, type Provider } from "./providers/types";
import { costOf, priceOf } from "./pricing";

/** An answer with what it cost. */
export interface LlmAnswer extends ChatResponse {
  provider: string;
  costUsd: number;
  /** How long the call waited for a place among the executor's model calls (ModelCalls), when it waited. */
  waitedMs?: number;
}

export interface LlmCallOptions {
  signal: AbortSignal;
  onText?: (piece: string) => void;
  /** Reads one of the owner's secrets, for providers whose key is `apiKeySecret`. */
  ownerSecret: (name: string) => Promise<string | undefined>;
}

interface Route {
  cfg: LlmProviderConfig;
  provider: Provider;
  /** The key from the configuration or the environment; `apiKeySecret` is read per call. */
  key: string | undefined;
}

/** The service's LLM providers and price table: routes a model to its provider and prices the answer. */
export class LlmGateway {
  private constructor(
    private readonly routes: Route[],
    private readonly prices: PriceTable,
  ) {}

  /** Fails at start-up, naming the variable, when a provider's key variable is not set. */
  static fromConfig(
    config: Pick<Config, "WF_LLM_PROVIDERS" | "WF_LLM_PRICES">,
    env: NodeJS.ProcessEnv = process.env,
  ): LlmGateway {
    const routes = (config.WF_LLM_PROVIDERS ?? []).map((cfg): Route => {
      let key = cfg.apiKey;
      if (cfg.apiKeyEnv !== undefined) {
        key = env[cfg.apiKeyEnv];
        if (!key)
          throw new ConfigError(
            `WF_LLM_PROVIDERS: provider ${cfg.name} takes its key from ${cfg.apiKeyEnv}, which is not set`,
          );
      }
      const provider = cfg.protocol === "openai" ? new OpenAiProvider(cfg) : new AnthropicProvider(cfg);
      return { cfg, provider, key };
    });
    return new LlmGateway(routes, config.WF_LLM_PRICES ?? {});
  }

  price(model: string): ModelPrice | null {
    return priceOf(this.prices, model);
  }

  async chat(req: ChatRequest, opts: LlmCallOptions): Promise<LlmAnswer> {
    const route = this.routes.find(
      (r) => r.cfg.models === undefined || r.cfg.models.some((p) => modelMatches(p, req.model)),
    );
    if (!route) {
      throw new ProviderError(
        "none",
        null,
        `no LLM provider serves model \`${req.model}\`: add one to WF_LLM_PROVIDERS (docs/ai-steps.md)`,
        false,
      );
    }
    let apiKey = route.key;
    if (route.cfg.apiKeySecret !== undefined) {
      apiKey = await opts.ownerSecret(route.cfg.apiKeySecret);
      if (apiKey === undefined) {
        throw new ProviderError(
          route.cfg.name,
          null,
          `its key is the workflow owner's secret \`${route.cfg.apiKeySecret}\`, which is not set (wf admin secret set --user <owner> --name ${route.cfg.apiKeySecret})`,
          false,
        );
      }
    }
    const answer = await route.provider.chat(req, {
      signal: opts.signal,
      apiKey,
      ...(opts.onText ? { onText: opts.onText } : {}),
    });
    return { ...answer, provider: route.cfg.name, costUsd: costOf(answer.usage, this.price(req.model)) };
  }
}
