import type { ApprovalRecord } from "@wf/shared/store";

/** What the one-click page shows: the approval and its form, or the outcome of a POST. */
export type LinkPage =
  | { kind: "review"; approval: ApprovalRecord }
  | { kind: "decided"; approval: ApprovalRecord }
  | { kind: "refused"; title: string; message: string; code: string };

const STYLE = `body{font:15px/1.5 system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem;color:#1d1d1f}
table{border-collapse:collapse;margin:.5rem 0 1.5rem}th,td{border:1px solid #ccc;padding:.25rem .6rem;text-align:left}
th{background:#f3f3f3}button{font-size:1rem;padding:.5rem 1.5rem;background:#0a7d32;color:#fff;border:0;border-radius:4px}
textarea{width:100%;min-height:4rem}.muted{color:#666}`;

/**
 * A self-contained HTML page (no script, no external resource). Every value from the record is
 * escaped: approval messages and rows come from workflow data, which may hold anything.
 */
export function renderLinkPage(page: LinkPage): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<meta name="robots" content="noindex"><title>${esc(titleOf(page))}</title><style>${STYLE}</style></head><body>
${bodyOf(page)}</body></html>`;
}

function titleOf(page: LinkPage): string {
  if (page.kind === "refused") return page.title;
  // A review of an approval handled meanwhile (or past its expiry) shows the outcome, so it is titled by it.
  const status = page.approval.status;
  return page.kind === "review" && status === "PENDING" ? "Approval requested" : `Approval ${status.toLowerCase()}`;
}

function bodyOf(page: LinkPage): string {
  if (page.kind === "refused")
    return `<h1>${esc(page.title)}</h1><p>${esc(page.message)}</p><p class="muted">Error code: <code>${esc(page.code)}</code></p>`;
  const a = page.approval;
  const head = `<h1>${esc(titleOf(page))}</h1><p>${esc(a.approvalMessage)}</p>
<p class="muted">Step <code>${esc(a.stepName)}</code> of execution <code>${esc(a.executionId)}</code>.</p>`;
  if (page.kind === "decided" || a.status !== "PENDING") {
    const by = a.decidedBy ? ` by ${esc(a.decidedBy)}` : "";
    const at = a.decidedAt ? ` at ${new Date(a.decidedAt).toISOString()}` : "";
    return `${head}<p>Status: <strong>${esc(a.status)}</strong>${by}${at}.</p>`;
  }
  const groups = a.reviewableGroups.map(groupTable).join("");
  // The form posts to this very URL (its query carries the key): only the POST approves.
  return `${head}<p>Expires at ${new Date(a.expiresAt).toISOString()}.</p>${groups}
<form method="post"><p><label>Comment (optional)<br><textarea name="comment" maxlength="10000"></textarea></label></p>
<button type="submit">Approve</button></form>`;
}

function groupTable(g: ApprovalRecord["reviewableGroups"][number]): string {
  const head = g.columns.map((c) => `<th>${esc(c.title)}</th>`).join("");
  const rows = g.items
    .map((row) => `<tr>${g.columns.map((c) => `<td>${esc(cell(row[c.key]))}</td>`).join("")}</tr>`)
    .join("");
  return `<h2>${esc(g.title)} <span class="muted">(${g.itemsCount})</span></h2><table><tr>${head}</tr>${rows}</table>`;
}

function cell(v: unknown): string {
  if (v === undefined || v === null) return "";
  return typeof v === "string" ? v : JSON.stringify(v);
}

function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
