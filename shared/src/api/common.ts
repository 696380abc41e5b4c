import { z } from "zod";

/** Ids are opaque; this bounds them so that no path segment reaches the store unchecked. */
export const Id = z.string().min(1, "must not be empty").max(128, "must have at most 128 characters");

export const IdParams = z.strictObject({ id: Id });

export const Timestamp = z.number().int().describe("Epoch milliseconds.");
