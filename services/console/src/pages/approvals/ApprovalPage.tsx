import { useState } from "react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { Link, useParams } from "react-router";
import { api } from "../../api/client";
import { useEventStream } from "../../api/events";
import { useSession } from "../../api/session";
import { useCoalesced } from "../../api/useCoalesced";
import type { ApprovalView, ExecutionView } from "../../api/types";
import { StatusBadge } from "../../ui/StatusBadge";
import { ErrorState, Loading } from "../../ui/states";
import { ApprovalContext } from "./ApprovalContext";
import { DECISION_COMMENT, DecisionPanel } from "./DecisionPanel";
import { GroupTable } from "./GroupTable";
import { Outcome } from "./Outcome";
import { detailKey, useDecision } from "./decide";
import { REFETCH_MS, changesStatus } from "./live";
import { useNow } from "./time";
import { changesOf, draftOf, resetGroup, setCell, toggleRemoved, type Drafts } from "./rows";
import { StepTestBadge } from "./StepTestBadge";
import { useWorkflowNames } from "./workflow-names";
import "./approvals.css";

/** One approval request: its context, its rows to review and edit, and the decision. */
export default function ApprovalPage() {
  const { id = "" } = useParams();
  const approval = useQuery({
    queryKey: detailKey(id),
    queryFn: ({ signal }) =>
      api<ApprovalView>("GET", `/api/console/approvals/${encodeURIComponent(id)}`, undefined, signal),
  });
  if (approval.isPending) return <Loading what="Loading the approval" />;
  if (approval.isError) return <ErrorState error={approval.error} retry={() => void approval.refetch()} />;
  // Keyed by the approval, so that going to another one starts with no edits.
  return <ApprovalDetail key={approval.data.id} approval={approval.data} />;
}

function ApprovalDetail({ approval }: { approval: ApprovalView }) {
  const queries = useQueryClient();
  const { state } = useSession();
  const me = state.status === "signed-in" ? state.session.user.id : null;
  const now = useNow();
  const workflowName = useWorkflowNames([approval.workflowId]).get(approval.workflowId);
  const executionKey = ["approvals", "execution", approval.executionId];
  const execution = useQuery({
    queryKey: executionKey,
    queryFn: ({ signal }) =>
      api<ExecutionView>(
        "GET",
        `/api/console/executions/${encodeURIComponent(approval.executionId)}`,
        undefined,
        signal,
      ),
  });
  // The execution's own stream: a decision made elsewhere, an expiry, and the run going on after a decision all show
  // here.
  const refresh = useCoalesced(
    () => {
      void queries.invalidateQueries({ queryKey: detailKey(approval.id) });
      void queries.invalidateQueries({ queryKey: executionKey });
    },
    REFETCH_MS,
    REFETCH_MS,
  );
  useEventStream(`/api/console/executions/${encodeURIComponent(approval.executionId)}/events`, (event) => {
    if (changesStatus(event)) refresh();
  });

  const [drafts, setDrafts] = useState<Drafts>({});
  const [decidedHere, setDecidedHere] = useState(false);
  const decision = useDecision(approval, drafts);
  const expired = approval.expiresAt <= now;
  const editing = approval.status === "PENDING" && !expired;
  const blocked = approval.reviewableGroups.some((g) => changesOf(g, draftOf(drafts, g.name)).problems.length > 0);
  const edit = (change: (d: Drafts) => Drafts) => {
    decision.reset();
    setDrafts(change);
  };

  return (
    <div className="stack approval-page">
      {editing ? (
        // A keyboard's way past the rows (three stops each) when they need no change; shown when it has the focus.
        <a
          href={`#${DECISION_COMMENT}`}
          className="skip-link"
          onClick={(event) => {
            event.preventDefault();
            document.getElementById(DECISION_COMMENT)?.focus();
          }}
        >
          Skip to your decision
        </a>
      ) : null}
      <Link to="/approvals" className="back-link">
        ← Approvals
      </Link>
      <div className="page-head">
        <h1>
          {workflowName ?? "Approval"} <span className="muted">·</span> <code>{approval.stepName}</code>
        </h1>
        <StatusBadge status={approval.status === "PENDING" && expired ? "expired" : approval.status} />
        {approval.stepTest ? <StepTestBadge /> : null}
      </div>
      <ApprovalContext approval={approval} workflowName={workflowName} execution={execution.data} now={now} />
      {approval.status === "PENDING" && expired ? (
        <div className="form-error" role="alert">
          This request expired on its deadline: it can no longer be decided, and the step will not run.
        </div>
      ) : null}
      {approval.reviewableGroups.map((group) => {
        const edited = approval.status === "APPROVED" ? approval.editedItems?.[group.name] : undefined;
        return (
          <GroupTable
            key={group.name}
            group={edited ? { ...group, items: edited } : group}
            caption={
              edited
                ? `The ${edited.length} row${edited.length === 1 ? "" : "s"} approved, as the reviewer edited them (of ${group.itemsCount} requested)`
                : undefined
            }
            draft={editing ? draftOf(drafts, group.name) : { removed: [], cells: {} }}
            editing={editing}
            serverProblems={decision.cellProblems}
            onCell={(row, key, d) => edit((all) => setCell(all, group.name, row, key, d))}
            onToggleRow={(row) => edit((all) => toggleRemoved(all, group.name, row))}
            onReset={() => edit((all) => resetGroup(all, group.name))}
          />
        );
      })}
      {editing ? (
        <DecisionPanel
          approval={approval}
          drafts={drafts}
          blocked={blocked}
          decision={{
            ...decision,
            decide: (verb, comment) => {
              setDecidedHere(true);
              decision.decide(verb, comment);
            },
          }}
        />
      ) : approval.status !== "PENDING" ? (
        <Outcome
          approval={approval}
          execution={execution.data}
          me={me}
          justDecided={decidedHere}
          lost={decision.lost}
        />
      ) : null}
    </div>
  );
}
