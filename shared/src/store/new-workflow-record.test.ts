import { describe, expect, it } from "vitest";
import { newWorkflowRecord, nextWorkflowVersion, WORKFLOW_HISTORY } from "./new-workflow-record";

const definition = { name: "w" };

describe("a workflow's versions", () => {
  it("keep the earlier texts, the oldest dropped past the count", () => {
    let record = newWorkflowRecord({ ownerId: "o", yaml: "v1", definition }, 1);
    for (let v = 2; v <= WORKFLOW_HISTORY.versions + 5; v++)
      record = nextWorkflowVersion(record, { yaml: `v${v}`, workflow: definition }, v);
    expect(record.version).toBe(WORKFLOW_HISTORY.versions + 5);
    expect(record.history).toHaveLength(WORKFLOW_HISTORY.versions);
    expect(record.history![0]).toEqual({ version: 5, yaml: "v5", updatedAt: 5 });
    expect(record.history!.at(-1)).toEqual({
      version: WORKFLOW_HISTORY.versions + 4,
      yaml: `v${WORKFLOW_HISTORY.versions + 4}`,
      updatedAt: WORKFLOW_HISTORY.versions + 4,
    });
  });

  it("keep at most their byte budget, and always the version just before", () => {
    const big = "x".repeat(WORKFLOW_HISTORY.bytes / 2 + 1);
    let record = newWorkflowRecord({ ownerId: "o", yaml: big, definition }, 1);
    for (let v = 2; v <= 4; v++) record = nextWorkflowVersion(record, { yaml: big, workflow: definition }, v);
    expect(record.history!.map((h) => h.version)).toEqual([3]);
    const huge = "y".repeat(WORKFLOW_HISTORY.bytes * 2);
    record = nextWorkflowVersion(
      nextWorkflowVersion(record, { yaml: huge, workflow: definition }, 5),
      { yaml: "small", workflow: definition },
      6,
    );
    expect(record.history!.map((h) => h.version)).toEqual([5]);
  });
});
