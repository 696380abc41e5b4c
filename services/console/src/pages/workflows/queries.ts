import { api, query } from "../../api/client";
import type {
  StartBody,
  StartResponse,
  WorkflowDetail,
  WorkflowDiff,
  WorkflowList,
  WorkflowPin,
  WorkflowVersion,
  WorkflowVersionList,
} from "../../api/types";

/** Query keys of the workflow pages: a save or delete invalidates `all`, so every list and view refetches. */
export const workflowKeys = {
  all: ["workflows"] as const,
  list: (search: string) => ["workflows", "list", search] as const,
  detail: (id: string) => ["workflows", "detail", id] as const,
  versions: (id: string) => ["workflows", "versions", id] as const,
  version: (id: string, version: number) => ["workflows", "version", id, version] as const,
  diff: (id: string, from: number, to: number) => ["workflows", "diff", id, from, to] as const,
};

const base = "/api/console/workflows";
const one = (id: string) => `${base}/${encodeURIComponent(id)}`;

export const PAGE_SIZE = 50;

export const fetchWorkflows = (search: string, cursor: string | undefined, signal: AbortSignal) =>
  api<WorkflowList>("GET", `${base}${query({ search, cursor, limit: PAGE_SIZE })}`, undefined, signal);
export const fetchWorkflow = (id: string, signal?: AbortSignal) =>
  api<WorkflowDetail>("GET", one(id), undefined, signal);
export const fetchVersions = (id: string, signal: AbortSignal) =>
  api<WorkflowVersionList>("GET", `${one(id)}/versions`, undefined, signal);
export const fetchVersion = (id: string, version: number, signal: AbortSignal) =>
  api<WorkflowVersion>("GET", `${one(id)}/versions/${version}`, undefined, signal);
export const fetchDiff = (id: string, from: number, to: number, signal: AbortSignal) =>
  api<WorkflowDiff>("GET", `${one(id)}/diff${query({ from, to })}`, undefined, signal);

export const createWorkflow = (yaml: string) => api<WorkflowDetail>("POST", base, { yaml });
export const updateWorkflow = (id: string, yaml: string, baseVersion: number) =>
  api<WorkflowDetail>("PUT", one(id), { yaml, baseVersion });
export const saveLayout = (id: string, positions: WorkflowDetail["layout"]["positions"]) =>
  api<WorkflowDetail["layout"]>("PUT", `${one(id)}/layout`, { positions });
export const pinOutput = (id: string, step: string, output: unknown, from: string | null) =>
  api<WorkflowPin>("PUT", `${one(id)}/pins/${encodeURIComponent(step)}`, { output, from });
export const unpinStep = (id: string, step: string) =>
  api<void>("DELETE", `${one(id)}/pins/${encodeURIComponent(step)}`);
export const deleteWorkflow = (id: string) => api<void>("DELETE", one(id));
export const startExecution = (id: string, body: StartBody) =>
  api<StartResponse>("POST", `${one(id)}/executions`, body);

export const editorPath = (id: string) => `/workflows/${encodeURIComponent(id)}`;
