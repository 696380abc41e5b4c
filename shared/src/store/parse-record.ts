import type { z } from "zod";
import { CorruptRecordError } from "../errors";

/** A stored record through its schema; one that no longer fits is a CorruptRecordError naming it. */
export function parseRecord<T>(schema: z.ZodType<T>, value: unknown, collection: string, key: string): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.slice(0, 3).map((i) => `${i.path.join(".") || "(record)"}: ${i.message}`);
  throw new CorruptRecordError(collection, key, problems.join("; "));
}
