import type { CreateWebhookBody, UpdateWebhookBody, WebhookMode, WebhookView, WorkflowVariable } from "../../api/types";

export interface MappingRow {
  id: number;
  variable: string;
  field: string;
}

export interface IpRow {
  id: number;
  value: string;
}

/** What the form edits: the API's fields, with the mode chosen outright instead of implied by which fields are set. */
export interface WebhookForm {
  workflowId: string;
  name: string;
  mode: WebhookMode;
  apiKeyId: string;
  /** Empty while editing an HMAC webhook: keep the stored secret. */
  secretKey: string;
  replayProtection: boolean;
  /** On: fields of the payload set variables (by name, or as `listed`); off: the payload sets none. */
  mapFields: boolean;
  /**
   * Only the fields of `mapping` set variables, each the one its row names, instead of every field named like a
   * variable.
   */
  listed: boolean;
  mapping: MappingRow[];
  ips: IpRow[];
  enabled: boolean;
}

/** Field -> message, keyed as the form shows them: `mapping:<row id>` and `ip:<row id>` for rows. */
export type Problems = Record<string, string>;

let lastRowId = 0;
export const nextRowId = (): number => ++lastRowId;

export function emptyForm(): WebhookForm {
  return {
    workflowId: "",
    name: "",
    mode: "hmac",
    apiKeyId: "",
    secretKey: "",
    replayProtection: false,
    mapFields: true,
    listed: false,
    mapping: [],
    ips: [],
    enabled: true,
  };
}

export function formOf(w: WebhookView): WebhookForm {
  return {
    workflowId: w.workflowId,
    name: w.name,
    mode: w.mode,
    apiKeyId: w.apiKeyId ?? "",
    secretKey: "",
    replayProtection: w.replayProtection,
    // The API's three cases: null maps by name, `{}` maps nothing, anything else as listed.
    mapFields: w.variableMapping === null || Object.keys(w.variableMapping).length > 0,
    listed: w.variableMapping !== null && Object.keys(w.variableMapping).length > 0,
    mapping: Object.entries(w.variableMapping ?? {}).map(([variable, field]) => ({ id: nextRowId(), variable, field })),
    ips: w.allowedSourceIps.map((value) => ({ id: nextRowId(), value })),
    enabled: w.enabled,
  };
}

const filledMapping = (f: WebhookForm) => f.mapping.filter((r) => r.variable.trim() !== "" || r.field.trim() !== "");
/** Blank rows are left out: the index the API names in `allowedSourceIps[i]` counts only these. */
export const sentIps = (f: WebhookForm): IpRow[] => f.ips.filter((r) => r.value.trim() !== "");

function variableMapping(f: WebhookForm): Record<string, string> | null {
  if (!f.mapFields) return {};
  if (!f.listed) return null;
  return Object.fromEntries(filledMapping(f).map((r) => [r.variable.trim(), r.field.trim()]));
}

export function createBody(f: WebhookForm): CreateWebhookBody {
  return {
    workflowId: f.workflowId,
    name: f.name.trim(),
    ...(f.mode === "api_key" ? { apiKeyId: f.apiKeyId } : {}),
    ...(f.mode === "hmac" ? { secretKey: f.secretKey } : {}),
    variableMapping: variableMapping(f),
    allowedSourceIps: sentIps(f).map((r) => r.value.trim()),
    enabled: f.enabled,
    replayProtection: f.mode === "hmac" && f.replayProtection,
  };
}

/**
 * The PUT that turns `current` into the form. The API infers the mode from the key and the secret
 * (docs/webhooks.md, Update), so a change of mode is said with those: unbinding a key needs the
 * secret (or null) in the same request, and a secret left behind by a switch to a key would only
 * be one more thing to leak.
 */
export function updateBody(f: WebhookForm, current: WebhookView): UpdateWebhookBody {
  const body: UpdateWebhookBody = {
    name: f.name.trim(),
    variableMapping: variableMapping(f),
    allowedSourceIps: sentIps(f).map((r) => r.value.trim()),
    enabled: f.enabled,
    replayProtection: f.mode === "hmac" && f.replayProtection,
  };
  if (f.mode === "api_key") {
    if (f.apiKeyId !== current.apiKeyId) body.apiKeyId = f.apiKeyId;
    if (current.mode === "hmac") body.secretKey = null;
  } else if (current.mode === "api_key") {
    body.clearApiKeyId = true;
    body.secretKey = f.mode === "hmac" ? f.secretKey : null;
  } else if (f.mode === "hmac") {
    if (f.secretKey !== "") body.secretKey = f.secretKey;
  } else if (current.hasSecret) {
    body.secretKey = null;
  }
  return body;
}

/** By name, only these types: an object or array field is the sender's own structure, never a variable. */
const BY_NAME_TYPES: ReadonlySet<WorkflowVariable["type"]> = new Set(["string", "number", "boolean"]);

const needsValue = (v: WorkflowVariable) => v.required === true && v.default === undefined;

/** "a", "a and b", "a, b and c". */
function andList(names: string[]): string {
  return names.length === 1 ? names[0]! : `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
}

/**
 * Required variables with no default that the mapping leaves unset: every trigger would be
 * refused 400 for want of them. Unknown while the workflow's variables are.
 */
function unsetRequired(f: WebhookForm, variables: Record<string, WorkflowVariable>): string[] {
  const mapped = new Set(filledMapping(f).map((r) => r.variable.trim()));
  return Object.entries(variables)
    .filter(
      ([name, v]) => needsValue(v) && (!f.mapFields || (f.listed ? !mapped.has(name) : !BY_NAME_TYPES.has(v.type))),
    )
    .map(([name]) => name);
}

/**
 * What the service would accept but not as meant: the API derives the mode from the fields sent,
 * so a key or secret left out would silently make an open webhook, two rows for one variable
 * would silently keep only the last, and a mapping that leaves a required variable unset (or
 * names one the workflow does not declare) makes a webhook that refuses every trigger.
 */
export function localProblems(
  f: WebhookForm,
  current: WebhookView | null,
  variables?: Record<string, WorkflowVariable>,
): Problems {
  const problems: Problems = {};
  if (current === null && f.workflowId === "") problems.workflowId = "choose the workflow the webhook starts";
  if (f.name.trim() === "") problems.name = "must not be empty";
  if (f.mode === "api_key" && f.apiKeyId === "") problems.apiKeyId = "choose the API key that may trigger it";
  if (f.mode === "hmac" && f.secretKey === "" && current?.mode !== "hmac")
    problems.secretKey = "needed for HMAC mode: type one or generate one";
  if (f.mapFields && f.listed) {
    const seen = new Set<string>();
    for (const row of filledMapping(f)) {
      const variable = row.variable.trim();
      if (variable === "" || row.field.trim() === "")
        problems[`mapping:${row.id}`] = "needs both a variable and a payload field";
      else if (seen.has(variable)) problems[`mapping:${row.id}`] = `${variable} is mapped twice`;
      else if (variables && !Object.hasOwn(variables, variable))
        problems[`mapping:${row.id}`] =
          `the workflow has no variable ${variable}; it has ${Object.keys(variables).join(", ") || "none"}`;
      seen.add(variable);
    }
    if (filledMapping(f).length === 0)
      problems.variableMapping = "list a payload field for a variable, or map fields by name";
  }
  const unset = variables ? unsetRequired(f, variables) : [];
  if (unset.length > 0 && problems.variableMapping === undefined) {
    const many = unset.length > 1;
    problems.variableMapping = `${andList(unset)} ${many ? "are" : "is"} required and ${many ? "have" : "has"} no default, and nothing in the payload would set ${many ? "them" : "it"}: every trigger would be refused (400)`;
  }
  return problems;
}

/** Splits a 400's field problems into those the form shows at a field and those it cannot place. */
export function placeProblems(
  details: { field: string; message: string }[],
  f: WebhookForm,
): { placed: Problems; unplaced: { field: string; message: string }[] } {
  const placed: Problems = {};
  const unplaced: { field: string; message: string }[] = [];
  const ips = sentIps(f);
  for (const d of details) {
    const ip = /^allowedSourceIps\[(\d+)\]$/.exec(d.field);
    const mapped = /^variableMapping\.(.+)$/.exec(d.field);
    let at: string | null = null;
    if (["workflowId", "name", "apiKeyId", "secretKey", "variableMapping", "allowedSourceIps"].includes(d.field))
      at = d.field;
    else if (d.field === "clearApiKeyId") at = "apiKeyId";
    else if (ip) at = ips[Number(ip[1])] ? `ip:${ips[Number(ip[1])]!.id}` : "allowedSourceIps";
    else if (mapped) {
      const row = f.mapping.find((r) => r.variable.trim() === mapped[1]);
      at = row ? `mapping:${row.id}` : "variableMapping";
    }
    if (at === null) unplaced.push(d);
    else placed[at] ??= d.message;
  }
  return { placed, unplaced };
}
