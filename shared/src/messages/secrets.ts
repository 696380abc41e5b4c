import { z } from "zod";

/**
 * `<ns>.svc.secrets`, a request to the executors (a queue group): the edge never holds the key
 * that seals owners' secrets, nor reads their records, so the console's secret routes ask an
 * executor, which does what `wf admin secret set|list|delete` does.
 */
export const SecretsRequest = z.discriminatedUnion("op", [
  z.object({
    op: z.literal("set"),
    ownerId: z.string().min(1),
    name: z.string().min(1),
    value: z.string(),
    at: z.number(),
  }),
  z.object({ op: z.literal("list"), ownerId: z.string().min(1) }),
  z.object({ op: z.literal("delete"), ownerId: z.string().min(1), name: z.string().min(1) }),
]);
export type SecretsRequest = z.infer<typeof SecretsRequest>;

const SecretInfo = z.object({ name: z.string(), createdAt: z.number(), updatedAt: z.number() });

export const SecretsReply = z.discriminatedUnion("ok", [
  z.object({
    ok: z.literal(true),
    secret: SecretInfo.optional(),
    secrets: z.array(SecretInfo).optional(),
    deleted: z.boolean().optional(),
  }),
  /** `code`: the error catalogue's, for the edge to answer with. */
  z.object({ ok: z.literal(false), code: z.string(), error: z.string() }),
]);
export type SecretsReply = z.infer<typeof SecretsReply>;
