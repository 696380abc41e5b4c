import { z } from "zod";
import { VARIABLE_TYPES } from "../workflow/value-types";
import { Id, Timestamp } from "./common";
import { ErrorBody } from "./errors";
import { MAX_PAGE_SIZE } from "./pagination";
import { ConsoleWorkflowPins } from "./pins";

/** The 1 MB body limit bounds the text; the parse bounds the rest. */
const Yaml = z.string().min(1, "must not be empty").describe("The workflow file, as `wf validate` reads it.");

export const ConsoleWorkflowRole = z.enum(["owner", "editor", "viewer"]);

export const ConsoleWorkflowListQuery = z.strictObject({
  search: z
    .string()
    .max(200, "must have at most 200 characters")
    .optional()
    .describe("Part of the name, in any letter case."),
  cursor: z
    .string()
    .max(400, "must have at most 400 characters")
    .optional()
    .describe("`nextCursor` of the previous page."),
  limit: z.coerce
    .number({ error: "must be an integer" })
    .int("must be an integer")
    .min(1, "must be at least 1")
    .max(MAX_PAGE_SIZE, `must be at most ${MAX_PAGE_SIZE}`)
    .default(50)
    .describe(`Page size, default 50, at most ${MAX_PAGE_SIZE}.`),
});

export const ConsoleWorkflowItem = z.object({
  id: z.string(),
  name: z.string(),
  version: z.number().int(),
  updatedAt: Timestamp,
  role: ConsoleWorkflowRole,
  stepCount: z.number().int().describe("Top-level steps."),
});
export type ConsoleWorkflowItem = z.infer<typeof ConsoleWorkflowItem>;

export const ConsoleWorkflowList = z.object({
  items: z.array(ConsoleWorkflowItem).describe("Newest first (by updatedAt, then id)."),
  total: z.number().int().describe("Workflows matching `search`, over all pages."),
  nextCursor: z.string().nullable().describe("Pass as `cursor` for the next page; null on the last."),
});

export const ConsoleWorkflowCreateBody = z.strictObject({ yaml: Yaml });

export const ConsoleWorkflowUpdateBody = z.strictObject({
  yaml: Yaml,
  baseVersion: z
    .number()
    .int("must be an integer")
    .positive("must be positive")
    .optional()
    .describe("The version the edit started from: another version stored since is a 409, not an overwrite."),
});

/**
 * Someone a workflow is shared with, by the email it was shared with: whether an account has it yet is not told
 * (an email with none is an invitation). `email` is null for a user whose account was removed.
 */
export const ConsoleSharee = z.object({
  email: z.string().nullable(),
  role: z.enum(["viewer", "editor"]),
});

/** The most steps a layout places: well over any workflow a canvas can show. */
export const MAX_LAYOUT_POSITIONS = 2000;

const Coordinate = z
  .number({ error: "must be a number" })
  .finite("must be a finite number")
  .min(-1e6, "must be at least -1000000")
  .max(1e6, "must be at most 1000000");

export const ConsoleWorkflowLayout = z.object({
  positions: z
    .record(
      z.string().min(1, "must not be empty").max(128, "must have at most 128 characters"),
      z.strictObject({ x: Coordinate, y: Coordinate }),
    )
    .refine((p) => Object.keys(p).length <= MAX_LAYOUT_POSITIONS, `must place at most ${MAX_LAYOUT_POSITIONS} steps`)
    .describe("Canvas positions a person chose, by step name; steps not named here are placed automatically."),
});

export const ConsoleLayoutBody = z.strictObject({ positions: ConsoleWorkflowLayout.shape.positions });

/** A declared variable as the YAML gives it: what a run's form or a webhook's payload has to set, and with what. */
export const ConsoleWorkflowVariable = z.object({
  type: z.enum(VARIABLE_TYPES),
  required: z.boolean().optional(),
  default: z.unknown().optional(),
  description: z.string().optional(),
});
export type ConsoleWorkflowVariable = z.infer<typeof ConsoleWorkflowVariable>;

export const ConsoleWorkflowDetail = z.object({
  id: z.string(),
  name: z.string(),
  ownerId: z.string(),
  yaml: z.string(),
  version: z.number().int(),
  role: ConsoleWorkflowRole,
  stepCount: z.number().int(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  sharedWith: z
    .array(ConsoleSharee)
    .nullable()
    .describe("Who it is shared with; shown to the owner only (null for others)."),
  layout: ConsoleWorkflowLayout,
  pins: ConsoleWorkflowPins,
  variables: z
    .record(z.string(), ConsoleWorkflowVariable)
    .describe("The variables the current version declares, by name."),
});

export const WorkflowIssueView = z.object({
  path: z.string(),
  line: z.number().int(),
  column: z.number().int(),
  message: z.string(),
});

export const WorkflowInvalidBody = ErrorBody.extend({
  details: z.array(WorkflowIssueView).describe("Each mistake, 1-based line and column."),
});

export const ConsoleWorkflowVersionParams = z.strictObject({
  id: Id,
  version: z.coerce.number({ error: "must be an integer" }).int("must be an integer").positive("must be positive"),
});

export const ConsoleWorkflowVersionItem = z.object({
  version: z.number().int(),
  updatedAt: Timestamp,
  current: z.boolean(),
});

export const ConsoleWorkflowVersionList = z.object({
  items: z.array(ConsoleWorkflowVersionItem).describe("Newest first."),
});

export const ConsoleWorkflowVersion = z.object({
  id: z.string(),
  version: z.number().int(),
  updatedAt: Timestamp,
  yaml: z.string(),
});

const VersionNumber = z.coerce
  .number({ error: "must be an integer" })
  .int("must be an integer")
  .positive("must be positive");

export const ConsoleWorkflowDiffQuery = z.strictObject({ from: VersionNumber, to: VersionNumber });

export const DiffLine = z.object({ op: z.enum(["same", "add", "remove"]), line: z.string() });
export type DiffLine = z.infer<typeof DiffLine>;

export const ConsoleWorkflowDiff = z.object({ from: z.number().int(), to: z.number().int(), lines: z.array(DiffLine) });

export const ConsoleSharingBody = z.strictObject({
  userEmail: z.email("must be an email address").max(320, "must have at most 320 characters"),
  role: z.enum(["viewer", "editor", "none"]).describe("`none` stops sharing with the user."),
});

export const ConsoleSharingResponse = z.object({ id: z.string(), sharedWith: z.array(ConsoleSharee) });

export const VersionConflictBody = ErrorBody.extend({
  currentVersion: z.number().int().describe("The version stored now."),
});
