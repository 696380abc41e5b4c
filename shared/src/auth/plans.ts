import { z } from "zod";

export const PLANS = ["free", "pro", "team", "enterprise"] as const;
export const Plan = z.enum(PLANS);
export type Plan = z.infer<typeof Plan>;

export interface PlanLimits {
  perMinute: number;
  /** null: no day limit (Enterprise). */
  perDay: number | null;
}

/** Per-key request limits by the key owner's plan (docs/api.md, Rate limits). */
export const PLAN_LIMITS: Record<Plan, PlanLimits> = {
  free: { perMinute: 60, perDay: 2_000 },
  pro: { perMinute: 300, perDay: 50_000 },
  team: { perMinute: 1_200, perDay: 500_000 },
  enterprise: { perMinute: 6_000, perDay: null },
};

const GIB = 1024 ** 3;

/**
 * The artifact bytes an owner's steps may store each UTC day, by plan (docs/sandbox.md#artifacts): artifacts are kept
 * as long as their executions (WF_EXECUTION_RETENTION), in the store every tenant shares, so a day's bound times the
 * retention bounds what one owner keeps.
 */
export const PLAN_ARTIFACT_BYTES_PER_DAY: Record<Plan, number> = {
  free: 1 * GIB,
  pro: 20 * GIB,
  team: 100 * GIB,
  enterprise: 500 * GIB,
};

/**
 * The workflows an account may own, by plan (docs/api.md#workflows-in-the-console): each is a record of up to the NATS
 * server's max_payload with its 50 kept versions, in the store every tenant shares, so without a bound one account
 * could fill it. Shared workflows count for their owner only.
 */
export const PLAN_WORKFLOWS: Record<Plan, number> = {
  free: 100,
  pro: 1_000,
  team: 5_000,
  enterprise: 20_000,
};

/**
 * The longest timeout a code step of an owner on each plan may have, in seconds (docs/workflow-format.md#modifiers): a
 * running step holds a slot of a runner's pools that every tenant shares, and an owner holding none waits, at worst,
 * for one step of those holding the pool to end (docs/sandbox.md#what-tenants-share). A free owner's steps (30 s by
 * default) hold a slot for 5 minutes at most; long batch work is a paid plan's, up to 6 hours (a night's job split in
 * a few steps). A longer timeout is refused when the workflow is saved, and a stored one (or one whose owner moved to a
 * smaller plan) runs with the plan's.
 */
export const PLAN_CODE_TIMEOUT_SECONDS: Record<Plan, number> = {
  free: 5 * 60,
  pro: 30 * 60,
  team: 2 * 60 * 60,
  enterprise: 6 * 60 * 60,
};

export const USER_STATUSES = ["active", "deactivated", "locked"] as const;
export const UserStatus = z.enum(USER_STATUSES);
export type UserStatus = z.infer<typeof UserStatus>;
