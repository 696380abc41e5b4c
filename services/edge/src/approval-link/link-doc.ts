import { z } from "zod";
import type { RouteDoc } from "../routes/route";

export const LinkParams = z.object({ id: z.string().min(1).max(200).describe("The approval's id.") });
export const LinkForm = z.object({
  comment: z.string().max(10_000, "must have at most 10000 characters").optional().describe("Reviewer note."),
});

const page = (description: string) => ({ description, html: true });
const common = { tag: "approvals", auth: "APPROVAL_RESPOND", params: LinkParams } as const;

/** The one-click approval link, served by approval-link/routes.ts, documented here. */
export const approvalLinkDocs: readonly RouteDoc[] = [
  {
    ...common,
    method: "GET",
    path: "/api/webhook-trigger/approval/{id}/approve",
    operationId: "approvalLinkPage",
    summary: "One-click link: an HTML page showing the approval and an Approve button; changes nothing",
    status: 200,
    responses: {
      200: page("The approval (message, rows, status) and, while PENDING, its Approve form."),
      404: page("No such approval, or not visible."),
    },
  },
  {
    ...common,
    method: "POST",
    path: "/api/webhook-trigger/approval/{id}/approve",
    operationId: "approvalLinkApprove",
    summary: "One-click link: the Approve button's form post; approves the approval",
    body: LinkForm,
    formBody: true,
    status: 200,
    responses: {
      200: page("The approval, now APPROVED."),
      403: page("The key's owner only views this workflow."),
      404: page("No such approval, not visible, or already handled."),
    },
  },
];
