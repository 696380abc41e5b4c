import { WfError } from "../errors";
import type { PageQuery } from "./port";

/** Offset and limit of a 1-based page; rejects what no list can answer, as the API would. */
export function pageWindow({ page, size }: PageQuery): { skip: number; limit: number } {
  if (!Number.isInteger(page) || page < 1 || !Number.isInteger(size) || size < 1) {
    throw new WfError("VALIDATION_FAILED", `invalid page ${page} of size ${size}`);
  }
  return { skip: (page - 1) * size, limit: size };
}
