/** Writes shared/schema/workflow.schema.json from the zod schemas (`npm run schema`). */
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { workflowJsonSchema } from "../src/workflow/json-schema";

export const SCHEMA_FILE = fileURLToPath(new URL("../schema/workflow.schema.json", import.meta.url));

export function renderJsonSchema(): string {
  return `${JSON.stringify(workflowJsonSchema(), null, 2)}\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(SCHEMA_FILE, renderJsonSchema());
  console.log(`wrote ${SCHEMA_FILE}`);
}
