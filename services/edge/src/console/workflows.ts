import {
  ConsoleSharingBody,
  ConsoleSharingResponse,
  ConsoleWorkflowCreateBody,
  ConsoleWorkflowDetail,
  ConsoleWorkflowDiff,
  ConsoleWorkflowDiffQuery,
  ConsoleWorkflowList,
  ConsoleWorkflowListQuery,
  ConsoleWorkflowUpdateBody,
  ConsoleWorkflowVersion,
  ConsoleWorkflowVersionList,
  ConsoleWorkflowVariable,
  ConsoleWorkflowVersionParams,
  ErrorBody,
  IdParams,
  ValidationErrorBody,
  VersionConflictBody,
  WorkflowInvalidBody,
  type ConsoleWorkflowItem,
} from "@wf/shared/api";
import { invitationKey, invitedEmail, MAX_SHAREES_PER_WORKFLOW, type Plan } from "@wf/shared/auth";
import { CasConflictError, WfError } from "@wf/shared/errors";
import {
  newWorkflowRecord,
  nextWorkflowVersion,
  storeNewWorkflow,
  storeWorkflowUpdate,
  type Store,
  type Versioned,
  type WorkflowRecord,
} from "@wf/shared/store";
import { parseWorkflow, type Workflow } from "@wf/shared/workflow";
import { z } from "zod";
import { requireWriter, roleOn, visibleWorkflow, type Role } from "../access/roles";
import { AnswerError } from "../errors";
import { defineRoute, type Route } from "../routes/route";
import { validationError } from "../routes/validate";
import { lineDiff } from "@wf/shared/text";
import { ownerPlan } from "./owner-plan";
import { versionsOf } from "./workflow-versions";

const notVisible = { description: "No such workflow, or not visible to you.", schema: ErrorBody };
const invalid = {
  description:
    "The YAML has mistakes: `details` lists each with its path, line and column; a code step's `timeout` over what " +
    "the owner's plan allows is one.",
  schema: WorkflowInvalidBody,
};
const tooLarge = {
  description:
    "`PAYLOAD_TOO_LARGE`: the body is over 1 MB, or the workflow is too large to store: its YAML and its parse, about " +
    "as large, must fit one NATS message (max_payload) together; the message says its size and the limit.",
  schema: ErrorBody,
};

/** Writing, reading, versioning and sharing workflows in the console (docs/api.md, Workflows in the console). */
export const consoleWorkflowRoutes: Route[] = [
  defineRoute({
    method: "GET",
    path: "/api/console/workflows",
    operationId: "consoleListWorkflows",
    summary: "The workflows you own or are shared, newest first, optionally those whose name contains `search`",
    tag: "workflows",
    auth: "console",
    query: ConsoleWorkflowListQuery,
    status: 200,
    responses: { 200: { description: "One page, and the cursor of the next.", schema: ConsoleWorkflowList } },
    async handler({ query }, { ctx, consoleUser }) {
      const userId = consoleUser().userId;
      const after = query.cursor === undefined ? null : decodeCursor(query.cursor);
      const needle = query.search?.toLowerCase() ?? "";
      const matching = (await allVisible(ctx.store, userId))
        .filter((w) => w.name.toLowerCase().includes(needle))
        .sort((a, b) => b.updatedAt - a.updatedAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
      const rest =
        after === null
          ? matching
          : matching.filter((w) => w.updatedAt < after.u || (w.updatedAt === after.u && w.id < after.id));
      const page = rest.slice(0, query.limit);
      const last = page.at(-1);
      return {
        items: page.map((w): ConsoleWorkflowItem => ({ ...itemOf(w), role: roleOn(w, userId)! })),
        total: matching.length,
        nextCursor: rest.length > page.length && last ? encodeCursor(last) : null,
      };
    },
  }),
  defineRoute({
    method: "POST",
    path: "/api/console/workflows",
    operationId: "consoleCreateWorkflow",
    summary: "Store a new workflow (version 1) from its YAML",
    tag: "workflows",
    auth: "console",
    body: ConsoleWorkflowCreateBody,
    status: 201,
    responses: {
      201: { description: "Stored; you own it.", schema: ConsoleWorkflowDetail },
      400: invalid,
      403: {
        description:
          "`PLAN_LIMIT`: you own as many workflows as your plan allows (the message says how many): delete some, or " +
          "change plan. Or the account is inactive, or X-CSRF-Token is wrong.",
        schema: ErrorBody,
      },
      413: tooLarge,
    },
    async handler({ body }, { ctx, consoleUser }) {
      const workflow = parseYaml(body.yaml, consoleUser().plan);
      const record = newWorkflowRecord(
        { ownerId: consoleUser().userId, yaml: body.yaml, definition: workflow },
        ctx.clock(),
      );
      await storeNewWorkflow(ctx.store, record, consoleUser().plan);
      return detailOf(ctx.store, record, "owner");
    },
  }),
  defineRoute({
    method: "GET",
    path: "/api/console/workflows/{id}",
    operationId: "consoleGetWorkflow",
    summary: "One workflow with its YAML, version and your role (and, for its owner, who it is shared with)",
    tag: "workflows",
    auth: "console",
    params: IdParams,
    status: 200,
    responses: { 200: { description: "The workflow.", schema: ConsoleWorkflowDetail }, 404: notVisible },
    async handler({ params }, { ctx, consoleUser }) {
      const { workflow, role } = await visibleWorkflow(ctx.store, params.id, consoleUser().userId);
      return detailOf(ctx.store, workflow.value, role);
    },
  }),
  defineRoute({
    method: "PUT",
    path: "/api/console/workflows/{id}",
    operationId: "consoleUpdateWorkflow",
    summary: "Store edited YAML as the workflow's next version (earlier versions are kept as the record has room)",
    tag: "workflows",
    auth: "console",
    params: IdParams,
    body: ConsoleWorkflowUpdateBody,
    status: 200,
    responses: {
      200: {
        description: "The workflow at its new version (the same version when the text did not change).",
        schema: ConsoleWorkflowDetail,
      },
      400: invalid,
      403: { description: "You only view this workflow (or X-CSRF-Token is wrong).", schema: ErrorBody },
      404: notVisible,
      409: {
        description:
          "`baseVersion` is not the stored version: someone saved in between; `currentVersion` says which is.",
        schema: VersionConflictBody,
      },
      413: tooLarge,
    },
    async handler({ params, body }, { ctx, consoleUser }) {
      const { workflow, role } = await visibleWorkflow(ctx.store, params.id, consoleUser().userId);
      requireWriter(role, "editing a workflow");
      const current = workflow.value;
      const parsed = parseYaml(body.yaml, await ownerPlan(ctx.store, current.ownerId, consoleUser()));
      if (body.baseVersion !== undefined && body.baseVersion !== current.version)
        throw staleBase(current.id, body.baseVersion, current.version);
      if (current.yaml === body.yaml) return detailOf(ctx.store, current, role);
      const next = nextWorkflowVersion(current, { yaml: body.yaml, workflow: parsed }, ctx.clock());
      let stored: WorkflowRecord;
      try {
        stored = await storeWorkflowUpdate(ctx.store, next, workflow.version);
      } catch (err) {
        if (!(err instanceof CasConflictError)) throw err;
        const now = await ctx.store.workflows.get(current.id);
        if (!now) throw new WfError("NOT_FOUND", `workflow ${current.id} not found`);
        throw staleBase(current.id, body.baseVersion ?? current.version, now.value.version);
      }
      return detailOf(ctx.store, stored, role);
    },
  }),
  defineRoute({
    method: "DELETE",
    path: "/api/console/workflows/{id}",
    operationId: "consoleDeleteWorkflow",
    summary: "Delete a workflow you own, every version (its executions stay)",
    tag: "workflows",
    auth: "console",
    params: IdParams,
    status: 204,
    responses: {
      204: { description: "Deleted." },
      403: { description: "Only the owner may delete (or X-CSRF-Token is wrong).", schema: ErrorBody },
      404: notVisible,
    },
    async handler({ params }, { ctx, consoleUser }) {
      const { role } = await visibleWorkflow(ctx.store, params.id, consoleUser().userId);
      requireOwner(role, "deleting a workflow");
      await ctx.store.workflows.delete(params.id);
      return undefined;
    },
  }),
  defineRoute({
    method: "GET",
    path: "/api/console/workflows/{id}/versions",
    operationId: "consoleListWorkflowVersions",
    summary: "The workflow's stored versions, newest first",
    tag: "workflows",
    auth: "console",
    params: IdParams,
    status: 200,
    responses: { 200: { description: "Every version kept.", schema: ConsoleWorkflowVersionList }, 404: notVisible },
    async handler({ params }, { ctx, consoleUser }) {
      const { workflow } = await visibleWorkflow(ctx.store, params.id, consoleUser().userId);
      const w = workflow.value;
      const items = versionsOf(w).map((v) => ({
        version: v.version,
        updatedAt: v.updatedAt,
        current: v.version === w.version,
      }));
      return { items: items.reverse() };
    },
  }),
  defineRoute({
    method: "GET",
    path: "/api/console/workflows/{id}/versions/{version}",
    operationId: "consoleGetWorkflowVersion",
    summary: "One version's YAML",
    tag: "workflows",
    auth: "console",
    params: ConsoleWorkflowVersionParams,
    status: 200,
    responses: {
      200: { description: "The version.", schema: ConsoleWorkflowVersion },
      404: { description: "No such workflow or version, or not visible to you.", schema: ErrorBody },
    },
    async handler({ params }, { ctx, consoleUser }) {
      const { workflow } = await visibleWorkflow(ctx.store, params.id, consoleUser().userId);
      return { id: workflow.value.id, ...versionOf(workflow.value, params.version) };
    },
  }),
  defineRoute({
    method: "GET",
    path: "/api/console/workflows/{id}/diff",
    operationId: "consoleDiffWorkflowVersions",
    summary: "A line diff of two versions' YAML, `from` to `to`",
    tag: "workflows",
    auth: "console",
    params: IdParams,
    query: ConsoleWorkflowDiffQuery,
    status: 200,
    responses: {
      200: { description: "Every line of both, in order, as same, add or remove.", schema: ConsoleWorkflowDiff },
      404: { description: "No such workflow or version, or not visible to you.", schema: ErrorBody },
    },
    async handler({ params, query }, { ctx, consoleUser }) {
      const { workflow } = await visibleWorkflow(ctx.store, params.id, consoleUser().userId);
      const from = versionOf(workflow.value, query.from);
      const to = versionOf(workflow.value, query.to);
      return { from: from.version, to: to.version, lines: lineDiff(from.yaml, to.yaml) };
    },
  }),
  defineRoute({
    method: "PUT",
    path: "/api/console/workflows/{id}/sharing",
    operationId: "consoleShareWorkflow",
    summary:
      "Share a workflow you own with a user by email, as viewer or editor, or stop sharing (`none`); an email with no " +
      "account yet is invited, and its account takes the share when it is made",
    tag: "workflows",
    auth: "console",
    params: IdParams,
    body: ConsoleSharingBody,
    status: 200,
    responses: {
      200: { description: "Who the workflow is shared with now.", schema: ConsoleSharingResponse },
      400: { description: "A bad body, or your own email.", schema: ValidationErrorBody },
      403: { description: "Only the owner may share (or X-CSRF-Token is wrong).", schema: ErrorBody },
      404: { description: "No such workflow, or not visible to you.", schema: ErrorBody },
      409: { description: "The workflow is shared with as many people as it may be.", schema: ErrorBody },
    },
    async handler({ params, body }, { ctx, consoleUser }) {
      const me = consoleUser().userId;
      const { workflow, role } = await visibleWorkflow(ctx.store, params.id, me);
      requireOwner(role, "sharing a workflow");
      const email = body.userEmail.trim().toLowerCase();
      const sharee = await ctx.store.users.getByEmail(email);
      if (sharee?.value.id === me)
        throw validationError([{ in: "body", field: "userEmail", message: "is your own: the owner needs no sharing" }]);
      // An email with no account is invited, answered as a share is: the answer tells nobody which emails have one.
      const key = sharee?.value.id ?? invitationKey(email);
      const sharedWith = { ...workflow.value.sharedWith };
      delete sharedWith[invitationKey(email)];
      if (body.role === "none") delete sharedWith[key];
      else sharedWith[key] = body.role;
      if (Object.keys(sharedWith).length > MAX_SHAREES_PER_WORKFLOW)
        throw new WfError(
          "CONFLICT",
          `conflict: a workflow is shared with at most ${MAX_SHAREES_PER_WORKFLOW} people; stop sharing it with one first`,
        );
      const next = { ...workflow.value, sharedWith };
      await ctx.store.workflows.update(next, workflow.version);
      return { id: next.id, sharedWith: await shareesOf(ctx.store, next) };
    },
  }),
];

function requireOwner(role: Role, what: string): void {
  if (role !== "owner")
    throw new WfError(
      "FORBIDDEN",
      `forbidden: ${what} needs the owner role on the workflow; you are ${role === "editor" ? "an" : "a"} ${role}`,
    );
}

/** A request made on a version of the workflow another save has replaced: `then` says what to do with the latest. */
export function staleBase(id: string, base: number, current: number, then: "edit" | "run" = "edit"): AnswerError {
  return new AnswerError(
    "CONFLICT",
    `workflow ${id} is at version ${current}, not ${base}: someone saved it since; reload version ${current} and ${then} that`,
    {
      currentVersion: current,
    },
  );
}

/** Parsed as `wf validate` parses a file: every mistake with its path, line and column; within the owner's `plan`. */
function parseYaml(yaml: string, plan: Plan): Workflow {
  const parsed = parseWorkflow(yaml, { plan });
  if (parsed.ok) return parsed.workflow;
  const details = parsed.errors.map(({ path, line, column, message }) => ({ path, line, column, message }));
  throw new WfError(
    "WORKFLOW_INVALID",
    `yaml: the workflow has ${details.length} mistake${details.length === 1 ? "" : "s"}`,
    details,
  );
}

const PAGE = 200;

async function allVisible(store: Store, userId: string): Promise<WorkflowRecord[]> {
  const all: WorkflowRecord[] = [];
  for (let page = 1; ; page++) {
    const { items, total } = await store.workflows.listVisible(userId, { page, size: PAGE });
    all.push(...items);
    if (items.length < PAGE || all.length >= total) return all;
  }
}

function encodeCursor(w: WorkflowRecord): string {
  return Buffer.from(JSON.stringify([w.updatedAt, w.id])).toString("base64url");
}

function decodeCursor(cursor: string): { u: number; id: string } {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    if (Array.isArray(value) && value.length === 2 && typeof value[0] === "number" && typeof value[1] === "string")
      return { u: value[0], id: value[1] };
  } catch {
    // answered below
  }
  throw validationError([{ in: "query", field: "cursor", message: "is not a cursor this list gave" }]);
}

function stepCount(w: WorkflowRecord): number {
  const steps = (w.definition as { steps?: unknown } | null)?.steps;
  return Array.isArray(steps) ? steps.length : 0;
}

/** The variables the stored parse declares: the record holds it untyped, so it is read as what the answer promises. */
const DeclaredVariables = z.object({ variables: z.record(z.string(), ConsoleWorkflowVariable).optional() });

function variablesOf(w: WorkflowRecord): Record<string, ConsoleWorkflowVariable> {
  const parsed = DeclaredVariables.safeParse(w.definition);
  return parsed.success ? (parsed.data.variables ?? {}) : {};
}

function itemOf(w: WorkflowRecord): Omit<ConsoleWorkflowItem, "role"> {
  return { id: w.id, name: w.name, version: w.version, updatedAt: w.updatedAt, stepCount: stepCount(w) };
}

async function detailOf(store: Store, w: WorkflowRecord, role: Role) {
  return {
    ...itemOf(w),
    ownerId: w.ownerId,
    yaml: w.yaml,
    role,
    createdAt: w.createdAt,
    sharedWith: role === "owner" ? await shareesOf(store, w) : null,
    layout: w.layout ?? { positions: {} },
    pins: w.pins ?? {},
    variables: variablesOf(w),
  };
}

/** By email, whether an account has it yet or not (an invitation): the owner is told no more than they gave. */
async function shareesOf(store: Store, w: WorkflowRecord) {
  const entries = Object.entries(w.sharedWith);
  const users = await Promise.all(
    entries.map(([key]) => (invitedEmail(key) === null ? store.users.get(key) : Promise.resolve(null))),
  );
  return entries.map(([key, role], i) => ({
    email: invitedEmail(key) ?? (users[i] as Versioned<{ email: string }> | null)?.value.email ?? null,
    role,
  }));
}

function versionOf(w: WorkflowRecord, version: number): { version: number; yaml: string; updatedAt: number } {
  const found = versionsOf(w).find((v) => v.version === version);
  if (!found) throw new WfError("NOT_FOUND", `workflow ${w.id} has no version ${version} kept`);
  return found;
}
