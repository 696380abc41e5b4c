import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useSearchParams } from "react-router";
import { api, query } from "../../api/client";
import type { ApprovalList as ApprovalListBody, ApprovalStatus } from "../../api/types";
import { LiveIndicator } from "../../ui/LiveIndicator";
import { Empty, ErrorState, Loading } from "../../ui/states";
import { ApprovalList } from "./ApprovalList";
import { useLiveApprovals } from "./live";
import "./approvals.css";

const SIZE = 20;
const DECIDED: { status: ApprovalStatus; label: string }[] = [
  { status: "APPROVED", label: "Approved" },
  { status: "REJECTED", label: "Rejected" },
  { status: "EXPIRED", label: "Expired" },
  { status: "CANCELLED", label: "Cancelled" },
];

/** Step tests' approvals are listed apart, only when asked for, as the executions list lists step tests. */
type Source = "step_test" | undefined;

function fetchApprovals(
  filter: { status: ApprovalStatus | undefined; triggerSource: Source },
  page: number,
  size: number,
  signal: AbortSignal,
) {
  return api<ApprovalListBody>("GET", `/api/console/approvals${query({ ...filter, page, size })}`, undefined, signal);
}

/** The approvals inbox: what waits for a decision, kept current by the user's event stream; and what was decided. */
export default function ApprovalsPage() {
  const [params, setParams] = useSearchParams();
  const history = params.get("tab") === "history";
  const decided = DECIDED.find((d) => d.status === params.get("status"))?.status;
  const status = history ? decided : "PENDING";
  const triggerSource: Source = params.get("triggerSource") === "step_test" ? "step_test" : undefined;
  const page = Math.max(1, Math.floor(Number(params.get("page"))) || 1);
  const stream = useLiveApprovals();

  const list = useQuery({
    queryKey: ["approvals", "list", status ?? "ANY", triggerSource ?? "runs", page],
    queryFn: ({ signal }) => fetchApprovals({ status, triggerSource }, page, SIZE, signal),
    placeholderData: keepPreviousData,
  });
  // The pending count for the tab, whichever tab is shown, of the requests the filter shows.
  const pending = useQuery({
    queryKey: ["approvals", "pending-count", triggerSource ?? "runs"],
    queryFn: ({ signal }) => fetchApprovals({ status: "PENDING", triggerSource }, 1, 1, signal),
  });

  const go = (next: { tab?: "history"; status?: ApprovalStatus; page?: number; triggerSource?: Source }) => {
    const search = new URLSearchParams();
    if (next.tab) search.set("tab", next.tab);
    if (next.status) search.set("status", next.status);
    if (next.triggerSource) search.set("triggerSource", next.triggerSource);
    if (next.page && next.page > 1) search.set("page", String(next.page));
    setParams(search);
  };
  const tab = history ? "history" : undefined;

  const pages = list.data ? Math.max(1, Math.ceil(list.data.total / SIZE)) : 1;

  return (
    <div className="stack">
      <div className="page-head">
        <h1>Approvals</h1>
        <LiveIndicator
          state={stream}
          endedLabel="Not live"
          title="New requests and decisions appear without reloading while this is live"
        />
      </div>
      <div className="tabs" role="tablist" aria-label="Approvals">
        <button type="button" role="tab" aria-selected={!history} onClick={() => go({ triggerSource })}>
          Pending{pending.data ? ` (${pending.data.total})` : ""}
        </button>
        <button type="button" role="tab" aria-selected={history} onClick={() => go({ tab: "history", triggerSource })}>
          History
        </button>
      </div>
      <div className="row">
        {history ? (
          <label className="inline">
            Show
            <select
              value={decided ?? ""}
              onChange={(e) =>
                go({ tab, status: DECIDED.find((d) => d.status === e.target.value)?.status, triggerSource })
              }
            >
              <option value="">every request, pending ones too</option>
              {DECIDED.map((d) => (
                <option key={d.status} value={d.status}>
                  {d.label}
                </option>
              ))}
            </select>
          </label>
        ) : null}
        <label className="inline">
          From
          <select
            value={triggerSource ?? ""}
            onChange={(e) =>
              go({ tab, status: decided, triggerSource: e.target.value === "step_test" ? "step_test" : undefined })
            }
          >
            <option value="">runs (not step tests)</option>
            <option value="step_test">step tests</option>
          </select>
        </label>
      </div>
      {list.isPending ? (
        <Loading what="Loading approvals" />
      ) : list.isError ? (
        <ErrorState error={list.error} retry={() => void list.refetch()} />
      ) : list.data.approvals.length === 0 ? (
        history ? (
          <Empty title={page > 1 ? "No more approvals on this page" : "No approvals here yet"}>
            Decided, expired and cancelled requests are kept here.
          </Empty>
        ) : triggerSource ? (
          <Empty title="No step test waits for your decision">
            A step test of a step with <code>manual_approval</code> asks here, apart from the runs&apos; requests.
          </Empty>
        ) : (
          <Empty title="Nothing waits for your decision">
            When an execution reaches a step with <code>manual_approval</code>, its request appears here as it pauses,
            without reloading.
          </Empty>
        )
      ) : (
        <ApprovalList approvals={list.data.approvals} history={history} />
      )}
      {pages > 1 || page > 1 ? (
        <nav className="row end" aria-label="Pages">
          <button
            type="button"
            disabled={page <= 1}
            onClick={() => go({ tab, status: decided, triggerSource, page: page - 1 })}
          >
            Previous
          </button>
          <span className="muted">
            Page {page} of {pages}
          </span>
          <button
            type="button"
            disabled={page >= pages}
            onClick={() => go({ tab, status: decided, triggerSource, page: page + 1 })}
          >
            Next
          </button>
        </nav>
      ) : null}
    </div>
  );
}
