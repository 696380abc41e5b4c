import type { Plan } from "@wf/shared/auth";
import type { OwnerPlans } from "../actor/owner-plans";

/**
 * The MCP connections one owner may have open on an executor, by plan (never more than WF_MCP_CONNECTIONS): each holds
 * a socket and a session on the executor, or a stdio server in the sandbox every tenant shares. As model calls are
 * (PLAN_MODEL_CALLS), since an agent's tool calls go between its model calls.
 */
export const PLAN_MCP_CONNECTIONS: Record<Plan, number> = { free: 4, pro: 16, team: 32, enterprise: 32 };

/** One MCP connection as its owner's places see it. */
export interface McpPlace {
  /** Some agent step is using it (connecting, listing tools, calling one): it is not taken away then. */
  readonly busy: boolean;
  /** Closes it to make room: the next use connects again. */
  evict(): void;
}

interface OwnerPlaces {
  /** Least recently used first. */
  held: Set<McpPlace>;
  /** Takes that wait for one of the held to be idle or closed. */
  waiting: Set<() => void>;
}

/**
 * The MCP connections each owner may have open on an executor, all its executions together: every connection holds a
 * socket and a session (or a stdio server in the sandbox), and one agent in a foreach whose headers differ by item
 * would otherwise open one per item for the length of the run. Past the owner's share (its plan's, at most `ceiling`:
 * `share`), a new connection closes the owner's least recently used idle one, never another owner's; while all are
 * busy it waits for one.
 */
export class McpPlaces {
  readonly #owners = new Map<string, OwnerPlaces>();

  constructor(
    readonly ceiling: number,
    private readonly plans: Pick<OwnerPlans, "of">,
  ) {}

  /** The connections an owner on `plan` may have open; one of no known plan counts as `free`. */
  share(plan: Plan | undefined): number {
    return Math.min(this.ceiling, PLAN_MCP_CONNECTIONS[plan ?? "free"]);
  }

  /** Holds a place for `place`; rejects with the signal's reason if `signal` aborts while it waits. */
  async take(owner: string, place: McpPlace, signal: AbortSignal): Promise<void> {
    const share = this.share(await this.plans.of(owner));
    // The owner's entry is read again each time: giving a place back may have dropped it. An owner now on a smaller
    // plan closes its idle ones until it holds less than its share.
    for (let mine = this.#of(owner); ; mine = this.#of(owner)) {
      if (mine.held.size < share) {
        mine.held.add(place);
        return;
      }
      const idle = [...mine.held].find((p) => !p.busy);
      if (idle) {
        this.give(owner, idle);
        idle.evict();
      } else await this.#wait(mine, signal);
    }
  }

  /** `place` was used: it is now the owner's most recently used. */
  touch(owner: string, place: McpPlace): void {
    const mine = this.#owners.get(owner);
    if (!mine?.held.delete(place)) return;
    mine.held.add(place);
  }

  /** `place` became idle: a take waiting for room may close it. */
  idle(owner: string): void {
    this.#wake(this.#owners.get(owner));
  }

  /** `place`'s connection is closed (or never opened): its place is free. */
  give(owner: string, place: McpPlace): void {
    const mine = this.#owners.get(owner);
    if (!mine?.held.delete(place)) return;
    this.#wake(mine);
    if (mine.held.size === 0 && mine.waiting.size === 0) this.#owners.delete(owner);
  }

  #of(owner: string): OwnerPlaces {
    let mine = this.#owners.get(owner);
    if (!mine) {
      mine = { held: new Set(), waiting: new Set() };
      this.#owners.set(owner, mine);
    }
    return mine;
  }

  #wake(mine: OwnerPlaces | undefined): void {
    for (const wake of mine?.waiting ?? []) wake();
  }

  #wait(mine: OwnerPlaces, signal: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      const done = (): void => {
        mine.waiting.delete(done);
        signal.removeEventListener("abort", onAbort);
        resolve();
      };
      const onAbort = (): void => {
        mine.waiting.delete(done);
        reject(signal.reason);
      };
      if (signal.aborted) return reject(signal.reason);
      signal.addEventListener("abort", onAbort, { once: true });
      mine.waiting.add(done);
    });
  }
}
