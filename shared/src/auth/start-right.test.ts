import { describe, expect, it } from "vitest";
import { newWorkflowRecord } from "../store/new-workflow-record";
import type { WorkflowRecord } from "../store/records";
import { startRefusal, starterOf } from "./start-right";

const workflow: WorkflowRecord = {
  ...newWorkflowRecord({ id: "w1", ownerId: "owner", yaml: "", definition: { name: "w" } }),
  sharedWith: { ed: "editor", vi: "viewer" },
};
const refusal = (
  id: string,
  status: "active" | "deactivated" | "locked" | null,
  w: WorkflowRecord | null = workflow,
) => {
  const err = startRefusal({ id, status }, "w1", w);
  return err && [err.code, err.message];
};

describe("the right to start a workflow", () => {
  it("is the owner's and an editor's; a viewer's start is forbidden, naming the workflow, the right and the user", () => {
    expect(refusal("owner", "active")).toBeNull();
    expect(refusal("ed", "active")).toBeNull();
    expect(refusal("vi", "active")).toEqual([
      "FORBIDDEN",
      "forbidden: starting workflow w1 needs the owner or editor role on it, and user vi is a viewer",
    ]);
  });

  it("is not found for a user who does not see the workflow, or when there is none", () => {
    expect(refusal("stranger", "active")).toEqual(["NOT_FOUND", "workflow w1 not found"]);
    expect(refusal("owner", "active", null)).toEqual(["NOT_FOUND", "workflow w1 not found"]);
  });

  it("needs an active account, checked first as the v1 start's authentication does; an owner that is no account has its role alone", () => {
    expect(refusal("owner", "locked")).toEqual([
      "ACCOUNT_INACTIVE",
      "forbidden: starting workflow w1 needs an active account, and user owner's is locked",
    ]);
    expect(refusal("stranger", "deactivated")?.[0]).toBe("ACCOUNT_INACTIVE");
    expect(starterOf("local", null)).toEqual({ id: "local", status: null });
    expect(refusal("owner", null)).toBeNull();
    expect(refusal("vi", null)?.[0]).toBe("FORBIDDEN");
  });
});
