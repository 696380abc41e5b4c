import { z } from "zod";
import { Timestamp } from "./common";
import { PageFields, pageQuery } from "./pagination";

export const WorkflowListQuery = z.strictObject(pageQuery(50));

export const WorkflowSummary = z.object({
  id: z.string(),
  name: z.string(),
  ownerId: z.string(),
  workflow: z.array(z.record(z.string(), z.unknown())).describe("The step definitions, as parsed from the YAML."),
});
export type WorkflowSummary = z.infer<typeof WorkflowSummary>;

export const WorkflowList = z.object({ items: z.array(WorkflowSummary), ...PageFields });

export const WorkflowDetail = WorkflowSummary.extend({
  variables: z.record(z.string(), z.record(z.string(), z.unknown())).describe("Variable name to its declaration."),
  yaml: z.string(),
  version: z.number().int(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type WorkflowDetail = z.infer<typeof WorkflowDetail>;
