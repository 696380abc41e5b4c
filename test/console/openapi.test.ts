import { describe, expect, it } from "vitest";
import { allResponses, apiRoutes, consoleApi, sessionRoutes } from "@wf/edge";
import { ERROR_CATALOGUE } from "@wf/shared/errors";
import { call, useApi } from "../api/support";

const api = useApi();

type Schema = {
  type?: string;
  required?: string[];
  properties?: Record<string, unknown>;
  enum?: string[];
  $ref?: string;
};

type Operation = {
  operationId: string;
  responses: Record<string, { content?: Record<string, { schema: Schema; "x-event-data"?: Schema }> }>;
  parameters?: { name: string; in: string; required: boolean; schema: Schema }[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  security: Record<string, string[]>[];
};

type Doc = {
  openapi: string;
  info: { title: string };
  paths: Record<string, Record<string, Operation>>;
  components: {
    securitySchemes: Record<string, { type: string; in?: string; name?: string }>;
    schemas: Record<string, Schema>;
  };
};

/** What the console document lists: the session routes v1's lists too, and the console API with its own document. */
const CONSOLE_ROUTES = [...sessionRoutes, ...consoleApi];

const consoleDoc = async () => {
  const r = await call(api(), "GET", "/api/console/openapi.json");
  expect(r.statusCode).toBe(200);
  return r.json() as Doc;
};

describe("GET /api/console/openapi.json", () => {
  it("lists exactly the console routes, each served, with the responses its definition declares and the session's security", async () => {
    const doc = await consoleDoc();
    expect(doc.openapi).toBe("3.1.0");
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`),
    );
    expect(documented.sort()).toEqual(CONSOLE_ROUTES.map((r) => `${r.method} ${r.path}`).sort());
    expect(documented).toEqual(
      expect.arrayContaining([
        "POST /api/console/workflows/{id}/executions",
        "GET /api/console/executions/{id}",
        "GET /api/console/executions/{id}/events",
        "POST /api/console/executions/{id}/debug/{command}",
        "PUT /api/console/executions/{id}/debug/breakpoints",
        "GET /api/console/openapi.json",
        "POST /api/console/login",
        "POST /api/webhooks",
      ]),
    );
    for (const route of CONSOLE_ROUTES) {
      const op = doc.paths[route.path]![route.method.toLowerCase()]!;
      expect(Object.keys(op.responses).sort(), `${route.method} ${route.path}`).toEqual(
        Object.keys(allResponses(route)).sort(),
      );
      expect(
        api().app.hasRoute({ method: route.method, url: route.path.replace(/\{(\w+)\}/g, ":$1") }),
        route.path,
      ).toBe(true);
      for (const name of route.path.match(/\{(\w+)\}/g) ?? []) {
        expect(op.parameters).toContainEqual(
          expect.objectContaining({ name: name.slice(1, -1), in: "path", required: true }),
        );
      }
      if (route.auth === "console") {
        const expected = route.method === "GET" ? [{ consoleSession: [] }] : [{ consoleSession: [], csrfToken: [] }];
        expect(op.security, `${route.method} ${route.path}`).toEqual(expected);
        expect(op.responses).toHaveProperty("401");
        expect(op.responses).toHaveProperty("403");
      } else {
        expect(op.security).toEqual([]);
      }
    }
    // Only the schemes its routes use: no API keys, no webhook signatures.
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(["consoleSession", "csrfToken"]);
    const operationIds = Object.values(doc.paths).flatMap((ops) => Object.values(ops).map((op) => op.operationId));
    expect(new Set(operationIds).size).toBe(operationIds.length);
  });

  it("describes each console route's parts and answers from its zod schemas", async () => {
    const doc = await consoleDoc();
    const start = doc.paths["/api/console/workflows/{id}/executions"]!.post!;
    const startBody = start.requestBody!.content["application/json"]!.schema;
    expect(Object.keys(startBody.properties!).sort()).toEqual(["debug", "enableMonitoring", "inputs", "version"]);
    expect(JSON.stringify(startBody.properties!.debug)).toContain("before_step");
    expect(start.responses["202"]!.content!["application/json"]!.schema.required).toEqual(
      expect.arrayContaining(["executionId", "status", "workflowId", "startedAt"]),
    );

    const view = doc.paths["/api/console/executions/{id}"]!.get!.responses["200"]!.content!["application/json"]!.schema;
    for (const field of [
      "status",
      "pause",
      "breakpoints",
      "edits",
      "steps",
      "usage",
      "rerunOf",
      "savedUsage",
      "definition",
      "completedSteps",
    ]) {
      expect(view.properties, field).toHaveProperty(field);
    }
    expect((view.properties!.status as Schema).enum).toContain("PAUSED");

    const events = doc.paths["/api/console/executions/{id}/events"]!.get!;
    expect(events.parameters).toContainEqual(
      expect.objectContaining({ name: "lastEventId", in: "query", required: false }),
    );
    const stream = events.responses["200"]!.content!["text/event-stream"]!;
    expect(stream.schema).toEqual({ type: "string", contentMediaType: "text/event-stream" });
    expect(stream["x-event-data"]!.required).toEqual(expect.arrayContaining(["type", "executionId", "at", "id"]));
    expect(events.responses).toHaveProperty("204");

    const command = doc.paths["/api/console/executions/{id}/debug/{command}"]!.post!;
    expect(command.parameters).toContainEqual(
      expect.objectContaining({
        name: "command",
        in: "path",
        schema: expect.objectContaining({ enum: ["continue", "step", "step_into", "skip", "set", "retry", "abort"] }),
      }),
    );
    expect(Object.keys(command.requestBody!.content["application/json"]!.schema.properties!)).toContain("pauseId");
    expect(command.responses["409"]!.content!["application/json"]!.schema.required).toEqual(
      expect.arrayContaining(["error", "code", "reason"]),
    );
    const breakpoints = doc.paths["/api/console/executions/{id}/debug/breakpoints"]!.put!;
    expect(breakpoints.requestBody!.content["application/json"]!.schema.required).toEqual(["breakpoints", "revision"]);
  });

  it("every JSON error answer requires `error` and the catalogue's `code`", async () => {
    const doc = await consoleDoc();
    expect(doc.components.schemas.ErrorCode!.enum).toEqual(Object.keys(ERROR_CATALOGUE));
    let errorAnswers = 0;
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        for (const [status, answer] of Object.entries(op.responses)) {
          const schema = answer.content?.["application/json"]?.schema;
          if (Number(status) < 400) continue;
          expect(schema, `${method} ${path} ${status}`).toBeDefined();
          errorAnswers++;
          expect(schema!.required, `${method} ${path} ${status}`).toEqual(expect.arrayContaining(["error", "code"]));
          expect(schema!.properties!.code).toEqual({ $ref: "#/components/schemas/ErrorCode" });
        }
      }
    }
    expect(errorAnswers).toBeGreaterThan(50);
  });

  it("leaves v1's document as it was: none of the console API's routes in it, and it keeps its own", async () => {
    const v1 = (await call(api(), "GET", "/api/v1/openapi.json")).json() as Doc;
    const consoleDocument = await consoleDoc();
    expect(v1.info.title).toBe("Workflow service API");
    expect(consoleDocument.info.title).toBe("Workflow service console API");
    for (const route of consoleApi)
      expect(v1.paths[route.path]?.[route.method.toLowerCase()], `${route.method} ${route.path}`).toBeUndefined();
    const v1Routes = Object.entries(v1.paths).flatMap(([path, ops]) =>
      Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`),
    );
    expect(v1Routes).toEqual(expect.arrayContaining(apiRoutes.map((r) => `${r.method} ${r.path}`)));
    expect(Object.keys(v1.components.securitySchemes)).toHaveLength(9);
  });
});
