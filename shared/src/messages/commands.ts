import { z } from "zod";
import { DEBUG_COMMANDS, DebugCommandBody, DebugRequest } from "../execution/debug";
import { ParentRef, StepTest, TriggerSource } from "../execution/snapshot";

/**
 * `<ns>.cmd.start.<lane>.<execId>`: everything an executor needs, so it reads no other record;
 * unless `pending`: the starter stored the execution PENDING first, and the executor takes over
 * what the store holds. On KV, an announced execution's stored form is this command itself
 * (with the definition) until an executor writes the record.
 */
export const StartCommand = z.object({
  executionId: z.string(),
  workflow: z.object({
    id: z.string(),
    name: z.string(),
    ownerId: z.string(),
    version: z.number().int().nullable(),
    /** Left out when the start created the PENDING record (a derived id, or an earlier version). */
    definition: z.unknown().optional(),
    /**
     * In place of `definition`: the stored definition's reference, the SHA-256 of its JSON (StoredDefinitions), for
     * the executor to look up.
     */
    definitionRef: z.string().optional(),
  }),
  /** The start stored the execution PENDING: read it first, and drop the command once it is gone (withdrawn). */
  pending: z.boolean().default(false),
  inputs: z.record(z.string(), z.unknown()).default({}),
  triggerSource: TriggerSource,
  enableMonitoring: z.boolean().default(false),
  parent: ParentRef.nullable().default(null),
  requestedAt: z.number(),
  /** A debug run: its breakpoints and idle timeout. */
  debug: DebugRequest.optional(),
  /** A rerun of execution `of` from its top-level step `fromStep`: the steps before it are taken from `of`, not run. */
  rerun: z.object({ of: z.string(), fromStep: z.string() }).optional(),
  /** A step test: only `step` runs, in the context of what `contextFrom` recorded before it. */
  stepTest: StepTest.optional(),
});
export type StartCommand = z.input<typeof StartCommand>;

/**
 * `<ns>.cmd.resume.<lane>.<execId>` (start-lanes.ts): wake a parked execution; the snapshot says what is due.
 * `handover`: a stopping executor left it between two steps, for another replica to go on.
 * `takeover`: the scheduler found it held by `from`, whose command is no longer stored (so never delivered again);
 * an executor takes it over under this command once that holder, asked, does not say it still runs it.
 */
export const ResumeCommand = z.object({
  executionId: z.string(),
  reason: z.enum(["timer", "child", "approval", "debug", "handover", "takeover"]),
  stepPath: z.string().optional(),
  from: z.object({ actor: z.string(), seq: z.number().int().positive() }).optional(),
});
export type ResumeCommand = z.input<typeof ResumeCommand>;

/** `<ns>.cmd.exec.cancel.<execId>` */
export const CancelCommand = z.object({
  executionId: z.string(),
  reason: z.string().optional(),
});
export type CancelCommand = z.input<typeof CancelCommand>;

/**
 * `<ns>.cmd.exec.fail.<execId>`: another service gave up a command that names this execution
 * (its body did not validate, or what it needs cannot be read): the executor, the one writer of
 * executions, ends it FAILED with `reason` unless it has ended already.
 */
export const FailCommand = z.object({
  executionId: z.string(),
  reason: z.string(),
});
export type FailCommand = z.input<typeof FailCommand>;

/** `<ns>.cmd.approval.expire.<approvalId>`: fired by the approval's timeout timer. */
export const ApprovalExpireCommand = z.object({
  approvalId: z.string(),
  executionId: z.string(),
});
export type ApprovalExpireCommand = z.input<typeof ApprovalExpireCommand>;

/**
 * `<ns>.cmd.exec.debug.<execId>`: a debugger command that won its pause (claimPause wrote
 * `claimId` into the snapshot first); the executor carries it out only while the snapshot still
 * holds that claim, so a redelivery changes nothing.
 */
export const DebugCommand = z.object({
  executionId: z.string(),
  command: z.enum(DEBUG_COMMANDS),
  body: DebugCommandBody,
  by: z.string(),
  at: z.number(),
  claimId: z.string(),
});
export type DebugCommand = z.input<typeof DebugCommand>;

/**
 * `<ns>.cmd.exec.debug.<execId>`: the debug run's breakpoints were replaced on its record (changeBreakpoints), as
 * `revision`: the executor announces the change (`debug_breakpoints`) if nobody did yet. It carries no list, so a late
 * or repeated one changes nothing.
 */
export const DebugBreakpointsCommand = z.object({
  executionId: z.string(),
  command: z.literal("breakpoints"),
  revision: z.number().int().positive(),
  by: z.string(),
  at: z.number(),
});
export type DebugBreakpointsCommand = z.input<typeof DebugBreakpointsCommand>;

/**
 * `<ns>.cmd.exec.debug.<execId>`: fired by a pause's idle timer; cancels the run if that pause still waits and has been
 * idle long enough.
 */
export const DebugIdleCommand = z.object({
  executionId: z.string(),
  command: z.literal("idle"),
  pauseId: z.string(),
});
export type DebugIdleCommand = z.input<typeof DebugIdleCommand>;

/** Everything the executor takes on `<ns>.cmd.exec.debug.<execId>`. */
export const DebugMessage = z.discriminatedUnion("command", [DebugCommand, DebugBreakpointsCommand, DebugIdleCommand]);
export type DebugMessage = z.output<typeof DebugMessage>;
