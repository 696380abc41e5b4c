import { beforeAll } from "vitest";
import { ApprovalView } from "@wf/shared/api";
import { waitFor } from "@wf/testing";
import type { ApiEnv } from "../api/support";

export interface HttpAnswer {
  status: number;
  body: unknown;
  text: string;
  headers: Headers;
}

/** Real HTTP to the edge under test: it listens on a loopback port for the file's tests. */
export function useHttp(
  api: () => ApiEnv,
): (
  method: string,
  path: string,
  opts?: { key?: string; body?: unknown; form?: Record<string, string> },
) => Promise<HttpAnswer> {
  let base = "";
  beforeAll(async () => {
    base = await api().app.listen({ port: 0, host: "127.0.0.1" });
  });
  return async (method, path, opts = {}) => {
    const headers: Record<string, string> = {};
    let body: string | undefined;
    if (opts.key) headers.authorization = `Bearer ${opts.key}`;
    if (opts.body !== undefined) {
      headers["content-type"] = "application/json";
      body = JSON.stringify(opts.body);
    } else if (opts.form) {
      headers["content-type"] = "application/x-www-form-urlencoded";
      body = new URLSearchParams(opts.form).toString();
    }
    const res = await fetch(base + path, { method, headers, ...(body === undefined ? {} : { body }) });
    const text = await res.text();
    let parsed: unknown = undefined;
    if (res.headers.get("content-type")?.startsWith("application/json")) parsed = JSON.parse(text);
    return { status: res.status, body: parsed, text, headers: res.headers };
  };
}

/** Polls the approvals of an execution over the API until `count` exist. */
export async function approvalsOf(
  http: ReturnType<typeof useHttp>,
  key: string,
  executionId: string,
  count = 1,
): Promise<ApprovalView[]> {
  return waitFor(
    async () => {
      const r = await http("GET", `/api/v1/approvals/execution/${executionId}`, { key });
      const list =
        r.status === 200 ? (r.body as { approvals: unknown[] }).approvals.map((a) => ApprovalView.parse(a)) : [];
      return list.length >= count ? list : undefined;
    },
    { timeoutMs: 20_000, what: `${count} approval(s) of execution ${executionId}` },
  );
}

type ExecutionView = Record<string, unknown> & { status: string; stepResults: Record<string, Record<string, unknown>> };

/** Polls the execution's status view until its status is one of `statuses`. */
export async function statusOf(
  http: ReturnType<typeof useHttp>,
  key: string,
  executionId: string,
  statuses: string[],
): Promise<ExecutionView> {
  return waitFor(
    async () => {
      const r = await http("GET", `/api/v1/executions/${executionId}`, { key });
      const body = r.body as { status?: string } | undefined;
      return r.status === 200 && body?.status && statuses.includes(body.status) ? (r.body as ExecutionView) : undefined;
    },
    { timeoutMs: 20_000, what: `execution ${executionId} in ${statuses.join("/")}` },
  );
}

/** A workflow with an upstream step, a gated step that reports the rows it got, and a step after it. */
export function gatedYaml(timeoutSeconds = 3600): string {
  return `
name: gated
steps:
  - name: fetch
    type: transform
    output:
      rows:
        - { id: 1, action: close }
        - { id: 2, action: reply }
        - { id: 3, action: escalate }
  - name: apply
    type: transform
    manual_approval:
      message: "Apply {{ $count(steps.fetch.output.rows) }} actions?"
      timeout: ${timeoutSeconds}
      groups:
        - name: rows
          title: Actions to apply
          items: "{{ steps.fetch.output.rows }}"
          columns:
            - { key: id, title: ID, type: number }
            - { key: action, title: Action, type: string, editable: true }
    output:
      applied: "{{ approval.rows }}"
  - name: after
    type: transform
    output: done
`;
}
