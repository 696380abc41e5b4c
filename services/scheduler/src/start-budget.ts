import type { Logger } from "@wf/shared/log";
import { OwnerMinuteBudget, WindowCounters } from "@wf/shared/rate-limit";
import type { Platform } from "@wf/shared/runtime";
import { JetStreamPublisher, type UserRecord } from "@wf/shared/store";

/**
 * Each owner's triggered starts (schedule ticks and chained runs) a minute, bounded by their plan's per-minute limit of
 * one API key (docs/scheduling.md#how-many-runs-triggers-start). Without it a workflow chained several times after
 * itself multiplied its runs each generation, and many schedules together started as many as they liked: work every
 * other tenant's executions queue behind. Counted when a start is due, in the bucket every replica shares.
 */
export class StartBudget {
  private constructor(
    private readonly platform: Platform,
    private readonly counters: WindowCounters,
    private readonly budget: OwnerMinuteBudget,
    private readonly publisher: JetStreamPublisher,
  ) {}

  static async open(platform: Platform, log: Logger): Promise<StartBudget> {
    const publisher = new JetStreamPublisher(platform.nc);
    try {
      const counters = await WindowCounters.open(
        platform.nc,
        platform.config.WF_NAMESPACE,
        platform.placement,
        publisher,
      );
      const budget = new OwnerMinuteBudget(
        counters,
        "triggered",
        "triggered runs skipped: the owner's triggered starts reached their plan's limit this minute",
        log,
      );
      return new StartBudget(platform, counters, budget, publisher);
    } catch (err) {
      publisher.close();
      throw err;
    }
  }

  /**
   * Whether `owner` may start the execution `executionId` that a trigger names now: one that exists already is a
   * start delivered again, allowed uncounted; another counts against the minute.
   */
  async allows(owner: UserRecord, executionId: string, source: Record<string, string>, now = Date.now()) {
    if (await this.platform.store.executions.get(executionId)) return true;
    return this.budget.allows(owner, source, now);
  }

  async close(): Promise<void> {
    await this.counters.close();
    this.publisher.close();
  }
}
