import { readFileSync } from "node:fs";
import { z } from "zod";

/**
 * One LLM provider of the service. The workflow names only a model; the first provider whose
 * `models` patterns match it serves it (a provider without `models` serves any model, so put it
 * last). Keys never come from a workflow file: `apiKey` (inline), `apiKeyEnv` (the name of an
 * environment variable holding it) or `apiKeySecret` (the name of a secret of the workflow's
 * owner, set with `wf admin secret set`).
 */
export const LlmProviderConfig = z
  .strictObject({
    name: z.string().regex(/^[A-Za-z0-9_.-]+$/, "must be letters, digits, '_', '.' or '-'"),
    protocol: z.enum(["openai", "anthropic"]),
    baseUrl: z.url({ protocol: /^https?$/ }).describe("e.g. https://api.openai.com/v1 or https://api.anthropic.com/v1"),
    models: z
      .array(z.string().min(1))
      .min(1)
      .optional()
      .describe("Model ids this provider serves; `*` matches any run of characters (e.g. `claude-*`)."),
    apiKey: z.string().min(1).optional(),
    apiKeyEnv: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/)
      .optional(),
    apiKeySecret: z.string().min(1).optional(),
    apiKeyHeader: z
      .string()
      .min(1)
      .optional()
      .describe(
        "Header that carries the key. Default: `Authorization: Bearer <key>` (openai), `x-api-key` (anthropic). Azure OpenAI: `api-key`.",
      ),
    headers: z.record(z.string(), z.string()).default({}),
    query: z
      .record(z.string(), z.string())
      .default({})
      .describe("Added to every request URL, e.g. Azure's `api-version`."),
    structuredOutput: z
      .boolean()
      .default(true)
      .describe("openai protocol: whether the server takes `response_format: json_schema`."),
    timeoutMs: z.int().min(100).max(3_600_000).default(120_000),
    maxRetries: z.int().min(0).max(10).default(3),
    retryBaseMs: z.int().min(0).max(60_000).default(500),
    maxRetryDelayMs: z.int().min(0).max(600_000).default(30_000),
  })
  .refine(
    (p) => [p.apiKey, p.apiKeyEnv, p.apiKeySecret].filter((k) => k !== undefined).length <= 1,
    "give at most one of apiKey, apiKeyEnv, apiKeySecret",
  );
export type LlmProviderConfig = z.output<typeof LlmProviderConfig>;

/** USD per million tokens, per model id or `*` pattern. */
export const ModelPrice = z.strictObject({ input: z.number().min(0), output: z.number().min(0) });
export type ModelPrice = z.output<typeof ModelPrice>;
export const PriceTable = z.record(z.string().min(1), ModelPrice);
export type PriceTable = z.output<typeof PriceTable>;

/**
 * A JSON value given inline (it starts with `{` or `[`) or as the path of a file holding it, so
 * that keys can live in a mounted file rather than in the environment.
 */
export function jsonOrFile<T extends z.ZodType>(schema: T) {
  return z
    .string()
    .transform((text, ctx) => {
      const trimmed = text.trim();
      let source = trimmed;
      if (!trimmed.startsWith("{") && !trimmed.startsWith("[")) {
        try {
          source = readFileSync(trimmed, "utf8");
        } catch (err) {
          ctx.addIssue({
            code: "custom",
            message: `is neither inline JSON nor a readable file: ${(err as NodeJS.ErrnoException).code ?? "unreadable"}`,
          });
          return z.NEVER;
        }
      }
      try {
        return JSON.parse(source) as unknown;
      } catch (err) {
        ctx.addIssue({ code: "custom", message: `is not valid JSON: ${(err as Error).message}` });
        return z.NEVER;
      }
    })
    .pipe(schema);
}

/** Whether a model id matches a `models` entry or a price-table key (`*` = any run of characters). */
export function modelMatches(pattern: string, model: string): boolean {
  if (!pattern.includes("*")) return pattern === model;
  const re = new RegExp(
    `^${pattern
      .split("*")
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
      .join(".*")}$`,
  );
  return re.test(model);
}
