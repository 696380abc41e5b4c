import { z } from "zod";

export const MAX_PAGE_SIZE = 200;

/** `page` (1-based) and `size` query parameters; query values arrive as text and are coerced. */
export function pageQuery(defaultSize: number) {
  return {
    page: z.coerce
      .number({ error: "must be an integer" })
      .int("must be an integer")
      .min(1, "must be at least 1")
      .default(1)
      .describe("1-based page number."),
    size: z.coerce
      .number({ error: "must be an integer" })
      .int("must be an integer")
      .min(1, "must be at least 1")
      .max(MAX_PAGE_SIZE, `must be at most ${MAX_PAGE_SIZE}`)
      .default(defaultSize)
      .describe(`Page size, default ${defaultSize}, at most ${MAX_PAGE_SIZE}.`),
  };
}

export const PageFields = {
  total: z.number().int().describe("Number of items over all pages."),
  page: z.number().int(),
  size: z.number().int(),
};
