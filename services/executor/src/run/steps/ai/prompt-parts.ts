import type { AgentDef, AgentStep, LlmStep } from "@wf/shared/workflow";
import type { Scope } from "../../scope";
import type { AiStepHost } from "./host";

/** An llm step's prompt and system prompt, rendered. */
export async function llmParts(
  host: AiStepHost,
  step: LlmStep,
  scope: Scope,
): Promise<{ prompt: string; system: string | undefined }> {
  const prompt = asText(await host.render(step.prompt, scope));
  const system = step.system === undefined ? undefined : asText(await host.render(step.system, scope));
  return { prompt, system };
}

/** An agent step's prompt and its agent's instructions, rendered. */
export async function agentParts(
  host: AiStepHost,
  step: AgentStep,
  agent: AgentDef,
  scope: Scope,
): Promise<{ prompt: string; instructions: string | undefined }> {
  const prompt = asText(await host.render(step.prompt, scope));
  const instructions =
    agent.instructions === undefined ? undefined : asText(await host.render(agent.instructions, scope));
  return { prompt, instructions };
}

/** The system prompt of an llm step with an `output_schema`: the instruction to answer by it comes last. */
export function withSchemaInstruction(
  system: string | undefined,
  schema: Record<string, unknown> | undefined,
): { system?: string } {
  if (schema === undefined) return system === undefined ? {} : { system };
  const instruction = `Answer with only a JSON value that satisfies this JSON Schema:\n${JSON.stringify(schema)}`;
  return { system: system === undefined ? instruction : `${system}\n\n${instruction}` };
}

/** A rendered value as text: a string as it is, anything else as JSON (nothing for null or undefined). */
export function asText(value: unknown): string {
  if (typeof value === "string") return value;
  return value === undefined || value === null ? "" : JSON.stringify(value);
}
