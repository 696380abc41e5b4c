import { z } from "zod";
import { ApprovalColumn, ApprovalStatus } from "../store/records";
import { Id, Timestamp } from "./common";
import { PageFields, pageQuery } from "./pagination";

export const ApprovalListQuery = z.strictObject({ status: ApprovalStatus.optional(), ...pageQuery(20) });

/** The console's inbox: v1's list, and step tests' approvals on request, as its execution list lists step tests. */
export const ConsoleApprovalListQuery = z.strictObject({
  ...ApprovalListQuery.shape,
  triggerSource: z
    .enum(["step_test"], { error: "must be step_test" })
    .optional()
    .describe(
      "`step_test`: list step tests' approvals, which are otherwise left out (docs/rerun.md#testing-one-step).",
    ),
});

export const ExecutionIdParams = z.strictObject({ executionId: Id });

const Row = z.record(z.string(), z.unknown());

export const ReviewableGroup = z.object({
  name: z.string().describe("The key of this group in editedItems."),
  title: z.string(),
  columns: z.array(ApprovalColumn),
  items: z.array(Row).describe("Full rows on the detail endpoint; always empty in lists."),
  itemsCount: z.number().int(),
});

export const ApprovalView = z.object({
  id: z.string(),
  executionId: z.string(),
  workflowId: z.string(),
  stepName: z.string(),
  status: ApprovalStatus,
  approvalMessage: z.string(),
  timeout: z.number().int().describe("Seconds; exceeding it rejects (status EXPIRED)."),
  createdAt: Timestamp,
  expiresAt: Timestamp,
  reviewableGroups: z.array(ReviewableGroup),
  decidedAt: Timestamp.nullable(),
  decidedBy: z.string().nullable().describe("The deciding user's id, or `timeout`."),
  comment: z.string().nullable(),
  editedItems: z.record(z.string(), z.array(Row)).nullable(),
  stepTest: z
    .literal(true)
    .optional()
    .describe(
      "Only on an approval a step test opened (its execution's triggerSource is step_test): not a production request.",
    ),
});
export type ApprovalView = z.infer<typeof ApprovalView>;

export const ApprovalList = z.object({ approvals: z.array(ApprovalView), ...PageFields });

export const ApprovalsOfExecution = z.object({ approvals: z.array(ApprovalView), total: z.number().int() });

const Comment = z.string().max(10_000, "must have at most 10000 characters");

export const ApproveBody = z.strictObject({
  comment: Comment.optional().describe("Reviewer note."),
  editedItems: z
    .record(z.string(), z.array(Row))
    .optional()
    .describe("Group name to the rows to run instead of the original ones; each row must fit the group's columns."),
});
export type ApproveBody = z.infer<typeof ApproveBody>;

export const RejectBody = z.strictObject({ comment: Comment.optional().describe("The reason for rejection.") });

/**
 * `<ns>.cmd.approval.<verb>.<approvalId>`: a decision the edge recorded on the approval record
 * (by compare-and-set, so only one decision wins), for the approvals actor to carry out.
 */
export const ApprovalDecision = z.object({
  approvalId: z.string(),
  executionId: z.string(),
  verb: z.enum(["approve", "reject"]),
  decidedBy: z.string(),
  decidedAt: Timestamp,
  comment: z.string().nullable(),
  editedItems: z.record(z.string(), z.array(Row)).nullable(),
});
export type ApprovalDecision = z.infer<typeof ApprovalDecision>;
