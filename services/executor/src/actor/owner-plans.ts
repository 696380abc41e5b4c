import type { Plan } from "@wf/shared/auth";
import { retryTransient } from "@wf/shared/nats";
import type { UserRepo } from "@wf/shared/store";
import { Lru } from "@wf/shared/pools";

/** A plan read is used this long: a plan's change reaches the JavaScript runners' shares within it. */
const PLAN_TTL_MS = 30_000;
/** Owners remembered at most; past it the oldest read is dropped. */
const MAX_OWNERS = 10_000;

/**
 * The plans of execution owners, for their shares of the sandbox runners: read from the store at
 * most once per owner per PLAN_TTL_MS, so that a JavaScript step does not cost a store read.
 */
export class OwnerPlans {
  private readonly known = new Lru<string, { plan: Promise<Plan | undefined>; at: number }>(MAX_OWNERS);

  constructor(private readonly users: Pick<UserRepo, "get">) {}

  /** A plan read with the rest of the account (a network step's egress list): no read of its own. */
  seen(ownerId: string, plan: Plan | undefined): void {
    this.remember(ownerId, Promise.resolve(plan), Date.now());
  }

  of(ownerId: string): Promise<Plan | undefined> {
    const now = Date.now();
    const hit = this.known.get(ownerId);
    if (hit && now - hit.at < PLAN_TTL_MS) return hit.plan;
    // A failed read is not kept: the next step asks again.
    const plan = retryTransient(() => this.users.get(ownerId)).then(
      (user) => user?.value.plan,
      () => {
        this.known.delete(ownerId);
        return undefined;
      },
    );
    this.remember(ownerId, plan, now);
    return plan;
  }

  private remember(ownerId: string, plan: Promise<Plan | undefined>, at: number): void {
    this.known.set(ownerId, { plan, at });
  }
}
