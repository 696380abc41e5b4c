import type { Plan, Scope } from "@wf/shared/auth";

/** Who a request authenticated as: the key and its owner. */
export interface Caller {
  keyId: string;
  userId: string;
  plan: Plan;
  scopes: readonly Scope[];
}
