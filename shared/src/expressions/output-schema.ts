import { outputSchemaSizeProblem } from "../workflow/output-schema-bounds";
import type { EvalFailure } from "./eval-pool";
import { expressionHosts } from "./evaluate";

export type SchemaCheck = { ok: true; value: unknown } | { ok: false; problems: string };

/**
 * An llm step's `output_schema`, checked in the expression hosts (output-schemas.mjs), for `owner`, in turn with every
 * owner's expressions: Ajv compiling a large schema held the executor's thread, every tenant's runs on it, for up to
 * seconds. Compiled there once per host and distinct schema (of at most MAX_OUTPUT_SCHEMA_CHARS), by the hosts'
 * deadline.
 */
export class OutputSchema {
  readonly #json: string;
  readonly #owner: string;

  private constructor(json: string, owner: string) {
    this.#json = json;
    this.#owner = owner;
  }

  /**
   * The step's schema, compiled once to know it can be used: throws an Error saying why not (too large, not a valid
   * JSON Schema, too long to compile), or `signal`'s reason once it aborts.
   */
  static async compile(schema: Record<string, unknown>, owner: string, signal?: AbortSignal): Promise<OutputSchema> {
    const json = JSON.stringify(schema);
    const tooLarge = outputSchemaSizeProblem(json);
    if (tooLarge !== undefined) throw new Error(tooLarge);
    try {
      await run(() => expressionHosts().checkBySchema(json, undefined, owner, signal), signal);
    } catch (err) {
      if (signal?.aborted) throw err;
      throw new Error(`\`output_schema\` cannot be used: ${(err as Error).message}`);
    }
    return new OutputSchema(json, owner);
  }

  /** The answer parsed as JSON (a Markdown code fence around it is allowed) and validated. */
  async check(answer: string, signal?: AbortSignal): Promise<SchemaCheck> {
    return (await run(
      () => expressionHosts().checkBySchema(this.#json, answer, this.#owner, signal),
      signal,
    )) as SchemaCheck;
  }
}

/** A host's failure as an Error; `signal`'s reason once it aborted. */
async function run(job: () => Promise<unknown>, signal: AbortSignal | undefined): Promise<unknown> {
  try {
    return await job();
  } catch (err) {
    if (signal?.aborted) throw signal.reason;
    throw new Error((err as EvalFailure).message);
  }
}
