import type { FastifyInstance, FastifyReply } from "fastify";
import { WfError } from "@wf/shared/errors";
import { requireWriter, visibleApproval } from "../access/roles";
import type { EdgeContext } from "../context";
import { decide } from "../decide-approval";
import { errorAnswer } from "../errors";
import { validationError } from "../routes/validate";
import { LinkForm, LinkParams } from "./link-doc";
import { renderLinkPage, type LinkPage } from "./page";

const APPROVAL_LINK_PATH = "/api/webhook-trigger/approval/:id/approve";
const FORM_LIMIT_BYTES = 16 * 1024;

/**
 * The one-click approval link (docs/api.md, Approvals): GET shows the approval and an Approve button and
 * never changes anything (mail and chat clients prefetch links); POST, sent by that button as a
 * form to the same URL, approves. The `api_key` query parameter authenticates both (scope
 * APPROVAL_RESPOND), like any API-key route. Its own scope, because the form arrives
 * url-encoded, which the JSON API refuses.
 */
export function registerApprovalLink(app: FastifyInstance, ctx: EdgeContext): void {
  void app.register(async (scope) => {
    scope.addContentTypeParser(
      "application/x-www-form-urlencoded",
      { parseAs: "string", bodyLimit: FORM_LIMIT_BYTES },
      (_req, body, done) => {
        done(null, Object.fromEntries(new URLSearchParams(body as string)));
      },
    );
    const config = { auth: "APPROVAL_RESPOND" as const };
    scope.get(APPROVAL_LINK_PATH, { config }, async (request, reply) => {
      return answer(reply, async () => {
        const { approval } = await visibleApproval(ctx.store, linkId(request.params), request.caller!.userId);
        return { kind: "review", approval: approval.value };
      });
    });
    scope.post(APPROVAL_LINK_PATH, { config }, async (request, reply) => {
      return answer(reply, async () => {
        const id = linkId(request.params);
        const form = LinkForm.safeParse(request.body ?? {});
        if (!form.success)
          throw new WfError("VALIDATION_FAILED", `comment ${form.error.issues[0]?.message ?? "is invalid"}`);
        const userId = request.caller!.userId;
        const { approval, role } = await visibleApproval(ctx.store, id, userId);
        requireWriter(role, "deciding an approval");
        const comment = form.data.comment?.trim() || null;
        await decide(ctx, approval, userId, "approve", { comment, editedItems: null });
        const decided = await ctx.store.approvals.get(id);
        return { kind: "decided", approval: decided?.value ?? approval.value };
      });
    });
  });
}

/** The approval's id; a bad one is the API's 400 (a thrown ZodError would be a 500). */
function linkId(params: unknown): string {
  const parsed = LinkParams.safeParse(params);
  if (parsed.success) return parsed.data.id;
  throw validationError(parsed.error.issues.map((issue) => ({ in: "path", field: "id", message: issue.message })));
}

/** Answers with the page, or with an error page carrying the API's status, message and code. */
async function answer(reply: FastifyReply, page: () => Promise<LinkPage>): Promise<string> {
  let shown: LinkPage;
  try {
    shown = await page();
  } catch (err) {
    const { status, body } = errorAnswer(err);
    if (status >= 500) throw err;
    void reply.code(status);
    shown = {
      kind: "refused",
      title: status === 404 ? "Approval not available" : "Not allowed",
      message: body.error,
      code: body.code,
    };
  }
  // The URL holds a key: no caching, no referrer, no framing (a framed Approve button could be clickjacked).
  void reply
    .type("text/html; charset=utf-8")
    .header("cache-control", "no-store")
    .header("referrer-policy", "no-referrer")
    .header("x-frame-options", "DENY")
    .header(
      "content-security-policy",
      "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
    );
  return renderLinkPage(shown);
}
