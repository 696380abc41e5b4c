import { useState } from "react";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api, ApiError } from "../../api/client";
import type { ApprovalView, ApproveBody, RejectBody } from "../../api/types";
import { useToast } from "../../ui/toast";
import { editedItemsOf, locateProblem, type Drafts } from "./rows";

export type Verb = "approve" | "reject";

export function detailKey(id: string) {
  return ["approvals", "detail", id];
}

/** A refused decision in words: what happened and what the page does about it, the service's own message kept. */
export interface DecisionProblem {
  title: string;
  lines: string[];
}

export interface Decision {
  decide(verb: Verb, comment: string): void;
  busy: boolean;
  verb: Verb | undefined;
  problem: DecisionProblem | null;
  /** Why the decision did not count when another one came first (404, 409): shown beside the one that did. */
  lost: string | null;
  /** The cells a 400 named, by `<group>|<row>|<key>`, the row being the one the reviewer sees. */
  cellProblems: Map<string, string>;
  reset(): void;
}

export function cellKey(group: string, row: number, key: string): string {
  return `${group}|${row}|${key}`;
}

/**
 * Approving or rejecting: approve sends `editedItems` only when the reviewer changed something.
 * A decision that lost to another one (404 on approve, 409 on reject) reloads the record, so the
 * page shows what was decided instead.
 */
export function useDecision(approval: ApprovalView, drafts: Drafts): Decision {
  const queries = useQueryClient();
  const toast = useToast();
  const [sent, setSent] = useState<Drafts>({});
  const mutation = useMutation({
    mutationFn: async ({ verb, comment }: { verb: Verb; comment: string }) => {
      const path = `/api/console/approvals/${encodeURIComponent(approval.id)}/${verb}`;
      const note = comment.trim() === "" ? undefined : comment;
      if (verb === "reject") return api<ApprovalView>("POST", path, { comment: note } satisfies RejectBody);
      return api<ApprovalView>("POST", path, {
        comment: note,
        editedItems: editedItemsOf(approval.reviewableGroups, drafts),
      } satisfies ApproveBody);
    },
    onMutate: () => setSent(drafts),
    onSuccess: (decided, { verb }) => {
      queries.setQueryData(detailKey(approval.id), decided);
      void queries.invalidateQueries({ queryKey: ["approvals", "list"] });
      void queries.invalidateQueries({ queryKey: ["approvals", "pending-count"] });
      toast(verb === "approve" ? "Approved: the execution goes on." : "Rejected: the gated step will not run.");
    },
    onError: (error) => {
      if (error instanceof ApiError && (error.status === 404 || error.status === 409))
        void queries.invalidateQueries({ queryKey: detailKey(approval.id) });
    },
  });

  const verb = mutation.variables?.verb;
  const error = mutation.error;
  const cellProblems = new Map<string, string>();
  let problem: DecisionProblem | null = null;
  if (error) {
    const lines: string[] = [];
    if (error instanceof ApiError && error.status === 400) {
      for (const detail of error.details) {
        const at = locateProblem(detail.field, approval.reviewableGroups, sent);
        if (!at) {
          lines.push(`${detail.field || "the request"}: ${detail.message}`);
          continue;
        }
        cellProblems.set(cellKey(at.group, at.row, at.key), detail.message);
        const group = approval.reviewableGroups.find((g) => g.name === at.group);
        const column = group?.columns.find((c) => c.key === at.key)?.title ?? at.key;
        lines.push(`${group?.title ?? at.group}, row ${at.row + 1}, ${column}: ${detail.message}`);
      }
    }
    problem = { title: explain(error, verb ?? "approve"), lines: lines.length > 0 ? lines : [error.message] };
  }

  return {
    decide: (v, comment) => mutation.mutate({ verb: v, comment }),
    busy: mutation.isPending,
    verb,
    problem,
    lost:
      error instanceof ApiError && (error.status === 404 || error.status === 409)
        ? explain(error, verb ?? "approve")
        : null,
    cellProblems,
    reset: () => {
      if (mutation.error) mutation.reset();
    },
  };
}

function explain(error: Error, verb: Verb): string {
  if (!(error instanceof ApiError)) return `The ${verb === "approve" ? "approval" : "rejection"} was not sent.`;
  if (error.status === 400)
    return "The service refused the edited rows; nothing was decided. Fix the marked cells and approve again:";
  if (error.status === 409) return "Someone decided this request before you: the page now shows their decision.";
  if (error.status === 404 && verb === "approve")
    return "This request can no longer be approved: it was decided, it expired, or its execution ended. The page now shows where it stands.";
  if (error.status === 404) return "This request is gone, or no longer visible to you.";
  if (error.status === 403)
    return "You may not decide this request: you only view its workflow (its owner or an editor decides), or your session changed.";
  if (error.status === 503) return "The decision could not be passed on, so nothing was recorded: retry in a moment.";
  if (error.status === 0) return "The service did not answer: nothing was decided. Check your connection and retry.";
  return `The service refused the ${verb === "approve" ? "approval" : "rejection"} (${error.status}).`;
}
