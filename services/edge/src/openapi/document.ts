import { z } from "zod";
import { ErrorBody, RateLimitErrorBody, RetryAfterErrorBody, ValidationErrorBody } from "@wf/shared/api";
import { SCOPES, type Scope } from "@wf/shared/auth";
import { SESSION_COOKIE } from "../console/cookie";
import type { ResponseDoc, RouteDoc } from "../routes/route";

type JsonObject = Record<string, unknown>;

/** A trigger's answers once counted, which carry the X-RateLimit headers (a disabled webhook's 409 is not counted). */
const COUNTED_TRIGGER = new Set([202, 400, 403, 409]);

const RATE_HEADERS = {
  "X-RateLimit-Limit": { description: "The limit of the window shown.", schema: { type: "integer" } },
  "X-RateLimit-Remaining": { description: "Requests left in that window.", schema: { type: "integer" } },
  "X-RateLimit-Window": { description: "`minute` or `day`.", schema: { type: "string", enum: ["minute", "day"] } },
};

const API_KEY = [{ bearer: [] }, { apiKeyHeader: [] }, { apiKeyQuery: [] }];

/** A webhook trigger offers whichever of these its mode asks for; `{}` is the open mode. */
const WEBHOOK_CREDENTIALS = [
  ...API_KEY,
  { webhookSignature: [] },
  { standardWebhookId: [], standardWebhookTimestamp: [], standardWebhookSignature: [] },
  {},
];

const STATE_CHANGING = new Set(["POST", "PUT", "DELETE"]);

const scopes: ReadonlySet<string> = new Set(SCOPES);
const isScope = (auth: string): auth is Scope => scopes.has(auth);

/** What a document says of itself: its `info`. */
export interface DocumentInfo {
  title: string;
  version: string;
  description: string;
}

/**
 * An OpenAPI 3.1 document of the routes (v1's, the console's), generated from the zod schemas that
 * validate the requests. Each route's common answers follow from its authentication and parts (400
 * for any validated part, 401/403/429 for API-key routes, 401/403 for console routes, 413/415 for a
 * body, 401 for the signed download); the webhook trigger declares its own. Only the security
 * schemes the routes use are listed.
 */
export function openApiDocument(info: DocumentInfo, routes: readonly RouteDoc[]): JsonObject {
  const paths: Record<string, Record<string, JsonObject>> = {};
  for (const route of routes) {
    (paths[route.path] ??= {})[route.method.toLowerCase()] = operation(route);
  }
  const schemas: JsonObject = {};
  hoistDefs(paths, schemas);
  return { openapi: "3.1.0", info, paths, components: { schemas, securitySchemes: schemesUsed(paths) } };
}

const SECURITY_SCHEMES: Record<string, JsonObject> = {
  bearer: { type: "http", scheme: "bearer", description: "Authorization: Bearer wfk_<keyId>_<secret> (tried first)." },
  apiKeyHeader: {
    type: "apiKey",
    in: "header",
    name: "X-API-Key",
    description: "Tried when Authorization is absent or empty.",
  },
  apiKeyQuery: {
    type: "apiKey",
    in: "query",
    name: "api_key",
    description: "Tried last; for one-click links, with short-lived keys.",
  },
  consoleSession: {
    type: "apiKey",
    in: "cookie",
    name: SESSION_COOKIE,
    description: "Set by POST /api/console/login (HttpOnly, SameSite=Lax); API keys are not accepted here.",
  },
  csrfToken: {
    type: "apiKey",
    in: "header",
    name: "X-CSRF-Token",
    description: "The csrfToken returned by login; needed by every state-changing console request.",
  },
  webhookSignature: {
    type: "apiKey",
    in: "header",
    name: "X-Webhook-Signature",
    description: "HMAC mode: hex HMAC-SHA256 of the raw body with the webhook's secret, `sha256=` optional.",
  },
  standardWebhookId: {
    type: "apiKey",
    in: "header",
    name: "webhook-id",
    description: "HMAC mode with replay protection (Standard Webhooks): the message id, accepted once.",
  },
  standardWebhookTimestamp: {
    type: "apiKey",
    in: "header",
    name: "webhook-timestamp",
    description: "Standard Webhooks: epoch seconds, within 5 minutes of now.",
  },
  standardWebhookSignature: {
    type: "apiKey",
    in: "header",
    name: "webhook-signature",
    description:
      'Standard Webhooks: space-separated `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`; one match is enough.',
  },
};

function schemesUsed(paths: Record<string, Record<string, JsonObject>>): JsonObject {
  const requirements = Object.values(paths).flatMap((ops) =>
    Object.values(ops).flatMap((op) => op.security as Record<string, unknown>[]),
  );
  const used = new Set(requirements.flatMap((requirement) => Object.keys(requirement)));
  return Object.fromEntries(Object.entries(SECURITY_SCHEMES).filter(([name]) => used.has(name)));
}

function operation(route: RouteDoc): JsonObject {
  const op: JsonObject = { operationId: route.operationId, summary: route.summary, tags: [route.tag] };
  if (route.description) op.description = route.description;
  if (route.auth === "console") {
    op.security = [STATE_CHANGING.has(route.method) ? { consoleSession: [], csrfToken: [] } : { consoleSession: [] }];
  } else if (route.auth === "webhook") {
    op.security = WEBHOOK_CREDENTIALS;
  } else if (isScope(route.auth)) {
    op.security = API_KEY;
    op["x-required-scope"] = route.auth;
    op.description = `Requires an API key with scope ${route.auth}.`;
  } else {
    op.security = [];
  }
  const parameters = [
    ...parametersOf(route.params, "path"),
    ...parametersOf(route.query, "query"),
    ...Object.entries(route.headers ?? {}).map(([name, doc]) => ({ name, in: "header", required: false, ...doc })),
  ];
  if (parameters.length > 0) op.parameters = parameters;
  if (route.body) {
    // The trigger reads any content type (as raw bytes); everything else takes JSON only.
    const type =
      route.auth === "webhook" ? "*/*" : route.formBody ? "application/x-www-form-urlencoded" : "application/json";
    op.requestBody = { required: false, content: { [type]: { schema: jsonSchema(route.body, "input") } } };
  }
  op.responses = Object.fromEntries(
    Object.entries(allResponses(route)).map(([status, doc]) => [status, response(doc, route, Number(status))]),
  );
  return op;
}

/** The route's own answers, and the common ones its authentication and parts imply. */
export function allResponses(route: RouteDoc): Record<number, ResponseDoc> {
  const common: Record<number, ResponseDoc> = {};
  if (route.params || route.query || route.body) {
    common[400] = {
      description: "`VALIDATION_FAILED`: a path, query or body field is invalid or unknown; `details` names each.",
      schema: ValidationErrorBody,
    };
  }
  if (route.auth === "signed-url") {
    common[401] = { description: "`UNAUTHORIZED`: bad or expired signature.", schema: ErrorBody };
  } else if (route.auth === "console") {
    common[401] = {
      description: "`SESSION_REQUIRED`: no valid console session (missing, unknown, expired or logged out).",
      schema: ErrorBody,
    };
    common[403] = {
      description: STATE_CHANGING.has(route.method)
        ? "`ACCOUNT_INACTIVE`: the account is deactivated or locked; `CSRF_FAILED`: X-CSRF-Token is missing or wrong."
        : "`ACCOUNT_INACTIVE`: the account is deactivated or locked.",
      schema: ErrorBody,
    };
  } else if (isScope(route.auth)) {
    common[401] = {
      description:
        "`UNAUTHORIZED`: missing, malformed, unknown, revoked or expired key, or the scope is lacking (never said which).",
      schema: ErrorBody,
    };
    common[403] = {
      description: "`ACCOUNT_INACTIVE`: the key's owner account is deactivated or locked.",
      schema: ErrorBody,
    };
    common[429] = {
      description: "`RATE_LIMITED`: the key's per-minute or per-day quota is used up.",
      schema: RateLimitErrorBody,
    };
  }
  if (route.body && route.auth !== "webhook") {
    common[413] = { description: "`PAYLOAD_TOO_LARGE`: the body is over 1 MB.", schema: ErrorBody };
    common[415] = { description: "`UNSUPPORTED_MEDIA_TYPE`: the body is not application/json.", schema: ErrorBody };
  }
  common[500] = {
    description: "`INTERNAL`: an unexpected failure; the details are in the service log.",
    schema: ErrorBody,
  };
  return { ...common, ...route.responses };
}

function response(doc: ResponseDoc, route: RouteDoc, status: number): JsonObject {
  const out: JsonObject = { description: doc.description };
  if (doc.binary)
    out.content = {
      "application/octet-stream": { schema: { type: "string", contentMediaType: "application/octet-stream" } },
    };
  else if (doc.html) out.content = { "text/html": { schema: { type: "string", contentMediaType: "text/html" } } };
  else if (doc.eventStream) {
    out.content = {
      "text/event-stream": {
        schema: { type: "string", contentMediaType: "text/event-stream" },
        "x-event-data": jsonSchema(doc.eventStream, "output"),
      },
    };
  } else if (doc.schema) out.content = { "application/json": { schema: jsonSchema(doc.schema, "output") } };
  if (doc.schema === RetryAfterErrorBody) {
    out.headers = {
      "Retry-After": { description: "Seconds to wait before trying again.", schema: { type: "integer" } },
    };
  } else if (status === 429) {
    out.headers = {
      "Retry-After": { description: "Seconds until the window resets.", schema: { type: "integer" } },
      ...RATE_HEADERS,
    };
  } else if ((isScope(route.auth) && status !== 401) || (route.auth === "webhook" && COUNTED_TRIGGER.has(status))) {
    out.headers = RATE_HEADERS;
  }
  if (doc.headers) out.headers = { ...(out.headers as JsonObject | undefined), ...doc.headers };
  if (route.auth === "signed-url" && (status === 200 || status === 206)) {
    out.headers = {
      "Content-Length": { schema: { type: "integer" } },
      "Content-Disposition": { schema: { type: "string" } },
      ...(status === 206 ? { "Content-Range": { schema: { type: "string" } } } : {}),
    };
  }
  return out;
}

function parametersOf(schema: z.ZodType | undefined, where: "path" | "query"): JsonObject[] {
  if (!schema) return [];
  if (!(schema instanceof z.ZodObject)) throw new Error(`${where} parameters need an object schema`);
  return Object.entries(schema.shape as Record<string, z.ZodType>).map(([name, field]) => {
    const param: JsonObject = {
      name,
      in: where,
      required: where === "path" || !field.safeParse(undefined).success,
      schema: jsonSchema(field, "input"),
    };
    if (field.description) param.description = field.description;
    return param;
  });
}

/**
 * Requests are strict (unknown fields are refused); answers are not closed, because answers may
 * gain fields (docs/api.md, The OpenAPI document): clients must ignore what they do not know.
 */
function jsonSchema(schema: z.ZodType, io: "input" | "output"): JsonObject {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as JsonObject;
  return io === "output" ? (openObjects(rest) as JsonObject) : rest;
}

/**
 * Moves the named schemas (zod `.meta({ id })`, such as ErrorCode) that each generated schema
 * carries in its own `$defs` into components.schemas, once, and points the references there.
 */
function hoistDefs(node: unknown, schemas: JsonObject): void {
  if (Array.isArray(node)) {
    for (const item of node) hoistDefs(item, schemas);
    return;
  }
  if (node === null || typeof node !== "object") return;
  const obj = node as JsonObject;
  if (typeof obj.$ref === "string" && obj.$ref.startsWith("#/$defs/"))
    obj.$ref = `#/components/schemas/${obj.$ref.slice("#/$defs/".length)}`;
  if (obj.$defs && typeof obj.$defs === "object") {
    for (const [name, def] of Object.entries(obj.$defs as JsonObject)) {
      hoistDefs(def, schemas);
      if (name in schemas && JSON.stringify(schemas[name]) !== JSON.stringify(def))
        throw new Error(`two different schemas named ${name}`);
      schemas[name] = def;
    }
    delete obj.$defs;
  }
  for (const value of Object.values(obj)) hoistDefs(value, schemas);
}

function openObjects(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(openObjects);
  if (node === null || typeof node !== "object") return node;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === "additionalProperties" && v === false) continue;
    out[k] = openObjects(v);
  }
  return out;
}
