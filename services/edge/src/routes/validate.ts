import type { FastifyRequest } from "fastify";
import { z } from "zod";
import { MAX_JSON_DEPTH, tooDeepAt, type FieldProblem } from "@wf/shared/api";
import { WfError } from "@wf/shared/errors";

type Part = FieldProblem["in"];

/** The query of a route that takes none: any field is unknown (docs/api.md, Requests). */
const NO_QUERY = z.strictObject({});

/** What parsing reads of a route (route.ts's Route has it): how it is authenticated, and its parts' schemas. */
export interface RequestSchemas {
  auth: string;
  params?: z.ZodType;
  query?: z.ZodType;
  body?: z.ZodType;
}

/**
 * Parses the path, query and body of a request with the route's zod schemas, reporting every
 * problem of every part at once (400 VALIDATION_FAILED, `details` one entry per field). On
 * API-key routes the `api_key` query parameter is a credential, not an input: it is left out.
 */
export function parseRequestParts(
  route: RequestSchemas,
  request: FastifyRequest,
): { params: unknown; query: unknown; body: unknown } {
  const problems: FieldProblem[] = [];
  const parse = (schema: z.ZodType | undefined, value: unknown, part: Part): unknown => {
    if (!schema) return undefined;
    const result = schema.safeParse(value);
    if (result.success) return result.data;
    problems.push(...result.error.issues.flatMap((issue) => fieldProblems(issue, part)));
    return undefined;
  };
  const rawQuery = { ...(request.query as Record<string, unknown>) };
  if (route.auth !== "signed-url") delete rawQuery.api_key;
  for (const [key, value] of Object.entries(rawQuery)) {
    if (!Array.isArray(value)) continue;
    // The parser gathers a repeated parameter into a list, which no query schema takes: say so, not that it is no text.
    problems.push({ in: "query", field: key, message: "given more than once: send it once" });
    delete rawQuery[key];
  }
  const parsed = {
    params: parse(route.params, request.params, "path"),
    query: parse(route.query ?? NO_QUERY, rawQuery, "query"),
    // Only a missing body is `{}`: a JSON `null` is a body, and not an object.
    body: parse(route.body, request.body === undefined ? {} : request.body, "body"),
  };
  if (problems.length > 0) throw validationError(problems);
  return parsed;
}

/**
 * The 400 of a JSON body nested deeper than MAX_JSON_DEPTH, or null. Its field is the body's
 * member holding the deep part, down to two levels (`inputs.meta`): the whole path would run to
 * dozens of segments.
 */
export function depthError(body: unknown): WfError | null {
  const path = tooDeepAt(body);
  if (path === null) return null;
  const message = `nests objects and arrays more than ${MAX_JSON_DEPTH} levels deep (the body is the first level); flatten it`;
  return validationError([{ in: "body", field: fieldPath(path.slice(0, 2)), message }]);
}

export function validationError(problems: FieldProblem[]): WfError {
  const text = problems.map((p) => `${p.in}${p.field ? ` field ${p.field}` : ""}: ${p.message}`).join("; ");
  return new WfError("VALIDATION_FAILED", `invalid request: ${text}`, problems);
}

function fieldProblems(issue: z.core.$ZodIssue, part: Part): FieldProblem[] {
  if (issue.code === "unrecognized_keys") {
    return issue.keys.map((key) => ({ in: part, field: fieldPath([...issue.path, key]), message: "unknown field" }));
  }
  if (issue.code === "invalid_type" && issue.path.length === 0 && part === "body") {
    return [{ in: part, field: "", message: "the body must be a JSON object" }];
  }
  if (issue.code === "too_small" && issue.origin === "string" && part === "path") {
    // `/api/v1/workflows/` reaches the route of one workflow, with an empty id.
    const message = `${issue.message}: the path has an empty segment there (a trailing / or a //)`;
    return [{ in: part, field: fieldPath(issue.path), message }];
  }
  return [{ in: part, field: fieldPath(issue.path), message: issue.message }];
}

/** `["editedItems", "rows", 0, "qty"]` -> `editedItems.rows[0].qty`. */
export function fieldPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((out, key) => {
    if (typeof key === "number") return `${out}[${key}]`;
    return out === "" ? String(key) : `${out}.${String(key)}`;
  }, "");
}
