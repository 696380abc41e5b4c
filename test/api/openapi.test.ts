import { describe, expect, it } from "vitest";
import { allResponses, apiRoutes, approvalLinkDocs, sessionRoutes, triggerRouteDocs } from "@wf/edge";
import { SCOPES } from "@wf/shared/auth";
import { ERROR_CATALOGUE } from "@wf/shared/errors";
import { call, useApi } from "./support";

const api = useApi();

/** The 14 v1 endpoints and the download route, with the statuses docs/api.md gives each. */
const SPEC: [method: string, path: string, statuses: number[]][] = [
  ["get", "/api/v1/workflows", [200, 400, 401, 403, 429]],
  ["get", "/api/v1/workflows/{id}", [200, 401, 403, 404, 429]],
  ["post", "/api/v1/workflows/{id}/executions", [202, 400, 401, 403, 404, 413, 415, 429]],
  ["get", "/api/v1/executions", [200, 400, 401, 403, 429]],
  ["get", "/api/v1/executions/{id}", [200, 401, 403, 404, 429]],
  ["get", "/api/v1/executions/{id}/result", [200, 401, 403, 404, 409, 429]],
  ["post", "/api/v1/executions/{id}/cancel", [200, 401, 403, 404, 429]],
  ["get", "/api/v1/approvals", [200, 400, 401, 403, 429]],
  ["get", "/api/v1/approvals/{id}", [200, 401, 403, 404, 429]],
  ["get", "/api/v1/approvals/execution/{executionId}", [200, 401, 403, 404, 429]],
  ["post", "/api/v1/approvals/{id}/approve", [200, 400, 401, 403, 404, 429]],
  ["post", "/api/v1/approvals/{id}/reject", [200, 400, 401, 403, 404, 409, 429]],
  ["get", "/api/v1/executions/{id}/artifacts", [200, 401, 403, 404, 429]],
  ["get", "/api/v1/executions/{id}/artifacts/{aid}", [200, 401, 403, 404, 429]],
  ["get", "/api/artifacts/{id}/download", [200, 206, 401, 404, 416]],
];

/** Every route the edge serves: the v1 and download routes, the console and webhook management, the triggers. */
const ALL_ROUTES = [...apiRoutes, ...sessionRoutes, ...triggerRouteDocs, ...approvalLinkDocs];

type Operation = {
  responses: Record<string, { content?: Record<string, { schema: unknown }>; headers?: Record<string, unknown> }>;
  parameters?: { name: string; in: string; required: boolean }[];
  requestBody?: { content: Record<string, unknown> };
  security: Record<string, string[]>[];
  "x-required-scope"?: string;
};

type Doc = {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: {
    securitySchemes: Record<string, { type: string; in?: string; name?: string }>;
    schemas: Record<string, { type?: string; enum?: string[]; description?: string; "x-enum-descriptions"?: string[] }>;
  };
};

describe("GET /api/v1/openapi.json", () => {
  it("serves an OpenAPI 3.1 document without a key", async () => {
    const r = await call(api(), "GET", "/api/v1/openapi.json");
    expect(r.statusCode).toBe(200);
    const doc = r.json() as Doc;
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.paths["/api/v1/openapi.json"]?.get).toBeDefined();
  });

  it("has every endpoint of the spec with its statuses, and each answer with a schema", async () => {
    const doc = (await call(api(), "GET", "/api/v1/openapi.json")).json() as Doc;
    for (const [method, path, statuses] of SPEC) {
      const op = doc.paths[path]?.[method];
      expect(op, `${method.toUpperCase()} ${path}`).toBeDefined();
      for (const status of statuses)
        expect(op!.responses, `${method.toUpperCase()} ${path} ${status}`).toHaveProperty(String(status));
    }
    const v1 = Object.entries(doc.paths)
      .flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m} ${path}`))
      .filter((k) => k.includes("/api/v1/") && !k.endsWith("openapi.json"));
    expect(v1).toHaveLength(14);
  });

  it("documents exactly the routes the edge serves, each with the responses its definition declares", async () => {
    const doc = (await call(api(), "GET", "/api/v1/openapi.json")).json() as Doc;
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`),
    );
    expect(documented.sort()).toEqual(ALL_ROUTES.map((r) => `${r.method} ${r.path}`).sort());
    for (const route of ALL_ROUTES) {
      const op = doc.paths[route.path]![route.method.toLowerCase()]!;
      expect(Object.keys(op.responses).sort()).toEqual(Object.keys(allResponses(route)).sort());
      expect(
        api().app.hasRoute({ method: route.method, url: route.path.replace(/\{(\w+)\}/g, ":$1") }),
        route.path,
      ).toBe(true);
      if ((SCOPES as readonly string[]).includes(route.auth)) expect(op["x-required-scope"]).toBe(route.auth);
      for (const name of route.path.match(/\{(\w+)\}/g) ?? []) {
        expect(op.parameters).toContainEqual(
          expect.objectContaining({ name: name.slice(1, -1), in: "path", required: true }),
        );
      }
    }
  });

  it("console routes take the session cookie, and the X-CSRF-Token header when they change state", async () => {
    const doc = (await call(api(), "GET", "/api/v1/openapi.json")).json() as Doc;
    const schemes = doc.components.securitySchemes;
    expect(schemes.consoleSession).toEqual(
      expect.objectContaining({ type: "apiKey", in: "cookie", name: "wf_session" }),
    );
    expect(schemes.csrfToken).toEqual(expect.objectContaining({ type: "apiKey", in: "header", name: "X-CSRF-Token" }));
    for (const route of sessionRoutes.filter((r) => r.auth === "console")) {
      const op = doc.paths[route.path]![route.method.toLowerCase()]!;
      const expected = route.method === "GET" ? [{ consoleSession: [] }] : [{ consoleSession: [], csrfToken: [] }];
      expect(op.security, `${route.method} ${route.path}`).toEqual(expected);
      expect(op.responses).toHaveProperty("401");
      expect(op.responses).toHaveProperty("403");
    }
    expect(doc.paths["/api/console/login"]!.post!.security).toEqual([]);
  });

  it("the trigger offers the three modes' credentials and answers in the documented order", async () => {
    const doc = (await call(api(), "GET", "/api/v1/openapi.json")).json() as Doc;
    expect(triggerRouteDocs.map((r) => r.path).sort()).toEqual([
      "/api/webhook-trigger/{webhook_id}",
      "/api/webhooks/{webhook_id}/trigger",
    ]);
    const schemes = doc.components.securitySchemes;
    expect(schemes.webhookSignature).toEqual(expect.objectContaining({ in: "header", name: "X-Webhook-Signature" }));
    for (const name of ["webhook-id", "webhook-timestamp", "webhook-signature"]) {
      expect(Object.values(schemes)).toContainEqual(expect.objectContaining({ in: "header", name }));
    }
    for (const route of triggerRouteDocs) {
      const op = doc.paths[route.path]!.post!;
      // API key (any of its three places), legacy HMAC, Standard Webhooks (all three headers), or open.
      expect(op.security).toEqual([
        { bearer: [] },
        { apiKeyHeader: [] },
        { apiKeyQuery: [] },
        { webhookSignature: [] },
        { standardWebhookId: [], standardWebhookTimestamp: [], standardWebhookSignature: [] },
        {},
      ]);
      for (const status of [202, 400, 401, 403, 404, 409, 413, 429])
        expect(op.responses, `${route.path} ${status}`).toHaveProperty(String(status));
      expect(op.responses).not.toHaveProperty("415");
      expect(Object.keys(op.requestBody!.content)).toEqual(["*/*"]);
      expect(op.responses["202"]!.headers).toHaveProperty("X-RateLimit-Remaining");
      expect(op.parameters).toContainEqual(expect.objectContaining({ name: "webhook_id", in: "path", required: true }));
    }
  });

  it("describes the query parameters with their limits and the error bodies with their fields", async () => {
    const doc = (await call(api(), "GET", "/api/v1/openapi.json")).json() as Doc;
    const list = doc.paths["/api/v1/workflows"]!.get!;
    expect(list.parameters).toContainEqual({
      name: "size",
      in: "query",
      required: false,
      schema: expect.objectContaining({ type: "integer", minimum: 1, maximum: 200, default: 50 }),
      description: expect.any(String),
    });
    const limited = list.responses["429"]!.content!["application/json"]!.schema as { required: string[] };
    expect(limited.required.sort()).toEqual(["code", "error", "limit", "retryAfterSeconds", "window"]);
    const approvals = doc.paths["/api/v1/approvals"]!.get!;
    expect(approvals.parameters).toContainEqual(
      expect.objectContaining({ name: "size", schema: expect.objectContaining({ default: 20, maximum: 200 }) }),
    );
  });

  it("every JSON error answer requires the catalogue's code, whose schema lists every code of the catalogue, described", async () => {
    const doc = (await call(api(), "GET", "/api/v1/openapi.json")).json() as Doc;
    const codes = doc.components.schemas.ErrorCode!;
    expect(codes.type).toBe("string");
    expect(codes.enum).toEqual(Object.keys(ERROR_CATALOGUE));
    for (const [code, { status, doc: meaning }] of Object.entries(ERROR_CATALOGUE)) {
      expect(codes.description, code).toContain(`\`${code}\` (${status}): ${meaning}`);
    }
    expect(codes["x-enum-descriptions"]).toEqual(Object.values(ERROR_CATALOGUE).map((c) => c.doc));
    let errorAnswers = 0;
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        for (const [status, answer] of Object.entries(op.responses)) {
          const schema = answer.content?.["application/json"]?.schema as
            { required?: string[]; properties?: Record<string, unknown> } | undefined;
          if (Number(status) < 400 || !schema) continue;
          errorAnswers++;
          expect(schema.required, `${method} ${path} ${status}`).toEqual(expect.arrayContaining(["error", "code"]));
          expect(schema.properties!.code, `${method} ${path} ${status}`).toEqual({
            $ref: "#/components/schemas/ErrorCode",
          });
        }
      }
    }
    expect(errorAnswers).toBeGreaterThan(100);
  });

  it("documents the one-click approval link: an HTML page (GET) and its form post (POST), key in the query allowed", async () => {
    const doc = (await call(api(), "GET", "/api/v1/openapi.json")).json() as Doc;
    const link = doc.paths["/api/webhook-trigger/approval/{id}/approve"]!;
    expect(Object.keys(link).sort()).toEqual(["get", "post"]);
    expect(link.get!.security).toContainEqual({ apiKeyQuery: [] });
    expect(Object.keys(link.get!.responses["200"]!.content!)).toEqual(["text/html"]);
    expect(Object.keys(link.post!.requestBody!.content)).toEqual(["application/x-www-form-urlencoded"]);
    expect(
      (link.post!.requestBody!.content["application/x-www-form-urlencoded"] as { schema: unknown }).schema,
    ).toMatchObject({
      properties: { comment: { type: "string" } },
    });
  });
});
