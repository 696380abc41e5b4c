import type { AgentDef } from "@wf/shared/workflow";
import type { McpServerTarget } from "../../../ai/mcp-pool";
import type { ToolSpec } from "../../../ai/providers/types";
import type { Scope } from "../../scope";
import type { AiStepHost } from "./host";
import { asText } from "./prompt-parts";

/** What a tool the model is given calls: a tool of one of the agent's MCP servers. */
export interface ToolTarget {
  server: McpServerTarget;
  tool: string;
}

/** An agent's MCP server, its templates rendered. */
export async function renderServer(
  host: AiStepHost,
  s: NonNullable<AgentDef["mcp"]>[number],
  scope: Scope,
  timeoutS: number | undefined,
): Promise<McpServerTarget> {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(s.headers ?? {})) headers[k] = asText(await host.render(v, scope));
  return {
    name: s.name,
    ...(s.url === undefined ? {} : { url: asText(await host.render(s.url, scope)) }),
    ...(s.headers === undefined ? {} : { headers }),
    ...(s.command === undefined ? {} : { command: ((await host.render(s.command, scope)) as unknown[]).map(asText) }),
    ...(timeoutS === undefined ? {} : { timeoutMs: timeoutS * 1000 }),
  };
}

/** The servers' tools as the model is given them (`specs`), and what each name the model may call calls (`tools`). */
export async function listTools(
  host: AiStepHost,
  servers: readonly McpServerTarget[],
  signal: AbortSignal,
): Promise<{ tools: Map<string, ToolTarget>; specs: ToolSpec[] }> {
  const tools = new Map<string, ToolTarget>();
  const specs: ToolSpec[] = [];
  for (const server of servers) {
    for (const t of await host.effects.mcpTools(server, signal)) {
      const exposed = toolName(server.name, t.name, tools);
      tools.set(exposed, { server, tool: t.name });
      specs.push({ name: exposed, description: t.description, parameters: t.inputSchema });
    }
  }
  return { tools, specs };
}

/** Providers take tool names of [A-Za-z0-9_-]{1,64}: `<server>__<tool>`, made unique. */
function toolName(server: string, tool: string, taken: ReadonlyMap<string, unknown>): string {
  const base = `${server}__${tool}`.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 60);
  let name = base;
  for (let i = 2; taken.has(name); i++) name = `${base}_${i}`;
  return name;
}
