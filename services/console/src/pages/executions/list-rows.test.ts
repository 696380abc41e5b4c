import { describe, expect, it } from "vitest";
import type { ExecutionList } from "../../api/types";
import { listRows } from "./list-rows";

const page = (...ids: string[]): ExecutionList =>
  ({ items: ids.map((id) => ({ id })), nextCursor: null }) as unknown as ExecutionList;

describe("listRows", () => {
  it("keeps each execution once, where it first came, when a later page repeats rows a new execution pushed down", () => {
    expect(listRows([page("e9", "e8", "e7"), page("e7", "e6"), page("e5")]).map((e) => e.id)).toEqual([
      "e9",
      "e8",
      "e7",
      "e6",
      "e5",
    ]);
    expect(listRows([])).toEqual([]);
  });
});
