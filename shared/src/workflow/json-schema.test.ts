import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { SCHEMA_FILE, renderJsonSchema } from "../../scripts/write-json-schema";
import { workflowJsonSchema } from "./index";

describe("workflowJsonSchema", () => {
  it("matches the committed shared/schema/workflow.schema.json (run `npm run schema` after changing the format)", () => {
    expect(readFileSync(SCHEMA_FILE, "utf8")).toBe(renderJsonSchema());
  });

  it("restates the rules zod checks in code", () => {
    const schema = workflowJsonSchema() as { $defs: Record<string, { oneOf?: Record<string, unknown>[] }> };
    const steps = schema.$defs.Step?.oneOf ?? [];
    const code = steps.find((s) => (s.properties as Record<string, { const?: string }>).type?.const === "code");
    expect(code?.then).toEqual({ required: ["command"], not: { required: ["code"] } });
    const wait = steps.find((s) => (s.properties as Record<string, { const?: string }>).type?.const === "wait");
    expect(wait?.oneOf).toEqual([{ required: ["seconds"] }, { required: ["until"] }]);
    expect(Object.keys(schema.$defs).filter((k) => k.startsWith("__"))).toEqual([]);
  });
});
