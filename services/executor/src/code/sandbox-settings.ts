import type { Config } from "@wf/shared/config";
import { EgressAllowEntrySchema } from "@wf/shared/config";
import { z } from "zod";

/** What an operator sets about the sandbox, passed from the service to each runner it forks (never a secret). */
export const SandboxSettings = z.object({
  /** The host uids the sandbox maps: WF_SANDBOX_UIDS. */
  uids: z.object({ first: z.number().int().positive(), count: z.number().int().positive() }),
  /** Further host paths steps may read: WF_SANDBOX_READ_ONLY. */
  readOnly: z.array(z.string().startsWith("/")),
  /** What steps' egress proxies allow beyond the default refusals: WF_EGRESS_ALLOW. */
  egressAllow: z.array(EgressAllowEntrySchema),
  /** Run steps without the sandbox where it cannot start: WF_SANDBOX_UNSAFE. */
  unsafe: z.boolean(),
  /**
   * Process steps at once (WF_SANDBOX_STEPS) and the memory they hold together, 0: a quarter of the host's
   * (WF_SANDBOX_STEPS_MEMORY_MB).
   */
  processSteps: z.object({ atOnce: z.number().int().min(1).max(1023), memoryMb: z.number().int().min(0) }),
});
export type SandboxSettings = z.infer<typeof SandboxSettings>;

/** WF_SANDBOX_UIDS's default: 2^20 uids from 0x70000000, far above any account, room for 1023 runners on a host. */
export const DEFAULT_SANDBOX_SETTINGS: SandboxSettings = {
  uids: { first: 0x70000000, count: 1 << 20 },
  readOnly: [],
  egressAllow: [],
  unsafe: false,
  processSteps: { atOnce: 32, memoryMb: 0 },
};

export function sandboxSettings(
  config: Pick<
    Config,
    | "WF_SANDBOX_UIDS"
    | "WF_SANDBOX_READ_ONLY"
    | "WF_EGRESS_ALLOW"
    | "WF_SANDBOX_UNSAFE"
    | "WF_SANDBOX_STEPS"
    | "WF_SANDBOX_STEPS_MEMORY_MB"
  >,
): SandboxSettings {
  return {
    uids: config.WF_SANDBOX_UIDS,
    readOnly: config.WF_SANDBOX_READ_ONLY ?? [],
    egressAllow: config.WF_EGRESS_ALLOW ?? [],
    unsafe: config.WF_SANDBOX_UNSAFE,
    processSteps: { atOnce: config.WF_SANDBOX_STEPS, memoryMb: config.WF_SANDBOX_STEPS_MEMORY_MB },
  };
}
