import type { CreateWebhookBody, UpdateWebhookBody, WebhookMode, WebhookView } from "../../api/types";

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
  /** Off: the API's default mapping (each top-level field that names a variable sets it). */
  mapFields: boolean;
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
    mapFields: false,
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
    mapFields: w.variableMapping !== null,
    mapping: Object.entries(w.variableMapping ?? {}).map(([variable, field]) => ({ id: nextRowId(), variable, field })),
    ips: w.allowedSourceIps.map((value) => ({ id: nextRowId(), value })),
    enabled: w.enabled,
  };
}

const filledMapping = (f: WebhookForm) => f.mapping.filter((r) => r.variable.trim() !== "" || r.field.trim() !== "");
/** Blank rows are left out: the index the API names in `allowedSourceIps[i]` counts only these. */
export const sentIps = (f: WebhookForm): IpRow[] => f.ips.filter((r) => r.value.trim() !== "");

function variableMapping(f: WebhookForm): Record<string, string> | null {
  if (!f.mapFields) return null;
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

/**
 * What the service would accept but not as meant: the API derives the mode from the fields sent,
 * so a key or secret left out would silently make an open webhook, and two rows for one variable
 * would silently keep only the last.
 */
export function localProblems(f: WebhookForm, current: WebhookView | null): Problems {
  const problems: Problems = {};
  if (current === null && f.workflowId === "") problems.workflowId = "choose the workflow the webhook starts";
  if (f.name.trim() === "") problems.name = "must not be empty";
  if (f.mode === "api_key" && f.apiKeyId === "") problems.apiKeyId = "choose the API key that may trigger it";
  if (f.mode === "hmac" && f.secretKey === "" && current?.mode !== "hmac") problems.secretKey = "needed for HMAC mode: type one or generate one";
  if (f.mapFields) {
    const seen = new Set<string>();
    for (const row of filledMapping(f)) {
      const variable = row.variable.trim();
      if (variable === "" || row.field.trim() === "") problems[`mapping:${row.id}`] = "needs both a variable and a payload field";
      else if (seen.has(variable)) problems[`mapping:${row.id}`] = `${variable} is mapped twice`;
      seen.add(variable);
    }
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
    if (["workflowId", "name", "apiKeyId", "secretKey", "variableMapping", "allowedSourceIps"].includes(d.field)) at = d.field;
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
