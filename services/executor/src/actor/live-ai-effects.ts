import { definitionJson, type ExecutionSnapshot } from "@wf/shared/execution";
import type { Logger } from "@wf/shared/log";
import { openSecret, openSecrets, type SecretBox } from "@wf/shared/secrets";
import type { Store } from "@wf/shared/store";
import type { LlmGateway } from "../ai/gateway";
import type { McpPlaces } from "../ai/mcp-places";
import { McpPool } from "../ai/mcp-pool";
import type { ModelCalls } from "../ai/model-calls";
import type { SandboxedStdio } from "../ai/sandboxed-stdio";
import type { EgressPolicy } from "../egress";
import type { AiEffects } from "../run/ai-effects";

export interface AiDeps {
  store: Store;
  llm: LlmGateway;
  /** The executor's places for model calls, which every owner's llm and agent steps take turns at. */
  modelCalls: ModelCalls;
  secretBox: SecretBox;
  /** How stdio MCP servers are started; null: they are refused (WF_MCP_STDIO=0). */
  mcpStdio: SandboxedStdio | null;
  /** Each owner's MCP connections open on the executor, bounded by its plan (PLAN_MCP_CONNECTIONS, WF_MCP_CONNECTIONS). */
  mcpPlaces: McpPlaces;
  /** The operator's egress policy (WF_EGRESS_ALLOW), which MCP `url:` servers must pass. */
  egress: EgressPolicy;
  log: Logger;
}

const NO_SECRETS: Readonly<Record<string, string>> = Object.freeze({});

/** The AI side effects of one execution's run; MCP connections open on first use. */
export function aiEffects(
  deps: AiDeps,
  snap: ExecutionSnapshot,
  secrets: Readonly<Record<string, string>> = NO_SECRETS,
): AiEffects {
  let pool: McpPool | null = null;
  const mcp = () =>
    (pool ??= new McpPool({ stdio: deps.mcpStdio, egress: deps.egress, owner: snap.ownerId, places: deps.mcpPlaces }));
  return {
    secrets,
    async llm(req, signal, onText) {
      const { value, waitedMs } = await deps.modelCalls.run(snap.ownerId, signal, () =>
        deps.llm.chat(req, {
          signal,
          ...(onText ? { onText } : {}),
          ownerSecret: (name) => openSecret(deps.store, deps.secretBox, snap.ownerId, name),
        }),
      );
      return waitedMs > 0 ? { ...value, waitedMs } : value;
    },
    llmPrice: (model) => deps.llm.price(model),
    mcpTools: (server, signal) => mcp().tools(server, signal),
    mcpCall: (server, tool, args, signal) => mcp().call(server, tool, args, signal),
    async dispose() {
      await pool?.close();
      pool = null;
    },
  };
}

/**
 * The owner's secrets when the workflow reads any (`secrets.` anywhere in it), else none: most
 * executions then cost no read. Secrets that cannot be opened (the key changed) are left out,
 * and named in a warning, never shown.
 */
export async function loadRunSecrets(deps: AiDeps, snap: ExecutionSnapshot): Promise<Readonly<Record<string, string>>> {
  if (!definitionJson(snap.definition).includes("secrets")) return NO_SECRETS;
  const { values, unreadable } = await openSecrets(deps.store, deps.secretBox, snap.ownerId);
  if (unreadable.length) {
    deps.log.warn("secrets sealed under another key cannot be read; WF_SECRETS_KEY changed?", {
      ownerId: snap.ownerId,
      secrets: unreadable,
    });
  }
  return values;
}
