import { PLAN_LIMITS, type Plan } from "../auth";
import type { Logger } from "../log";
import type { WindowCounters } from "./window-counters";

/**
 * One kind of an owner's starts that no request makes (`kind`: `triggered` for schedule ticks and chained runs,
 * `subworkflow` for `workflow` steps' children), bounded each epoch minute by their plan's per-minute limit of one API
 * key. Counted as `<kind>-<ownerId>` in the counters every replica shares; the first start past the limit in an
 * owner's minute is logged with `refusal`, those after it in the same minute are not.
 */
export class OwnerMinuteBudget {
  constructor(
    private readonly counters: WindowCounters,
    private readonly kind: string,
    private readonly refusal: string,
    private readonly log: Logger,
  ) {}

  /** Counts one start of `owner` at `now`: whether it is within their plan's minute. */
  async allows(owner: { id: string; plan: Plan }, source: Record<string, string>, now = Date.now()): Promise<boolean> {
    const limit = PLAN_LIMITS[owner.plan].perMinute;
    const { minute } = await this.counters.count(`${this.kind}-${owner.id}`, now);
    if (minute <= limit) return true;
    if (minute === limit + 1)
      this.log.warn(this.refusal, { ownerId: owner.id, plan: owner.plan, perMinute: limit, ...source });
    return false;
  }
}
