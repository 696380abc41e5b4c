import type { Zygote } from "./zygote";

/** Zygotes kept, started and idle, for owners yet to come (each costs about 10 MB, and its spare step processes 3). */
const MAX_IDLE = 2;

interface Held {
  zygote: Promise<Zygote>;
  owner: string | undefined;
  /** Steps handed this zygote and not given back. */
  users: number;
}

/**
 * The zygotes of one runner, so that a zygote never serves two owners at once: the steps of one
 * owner share theirs while any runs; an owner with none gets an idle one or a new one. A zygote
 * goes back to the idle ones when its owner's last step is over (it holds nothing of a step:
 * steps are forked from it, never run in it), and dead ones are dropped and started anew.
 */
export class ZygotePool {
  private readonly held: Held[] = [];
  private closed = false;

  constructor(private readonly start: () => Promise<Zygote>) {}

  /** A zygote for `owner`'s next step; give it back with release() when the step is over. */
  async acquire(owner: string): Promise<{ zygote: Zygote; release: () => void }> {
    if (this.closed) throw new Error("the sandbox is closed");
    const held = this.held.find((h) => h.owner === owner) ?? this.held.find((h) => h.owner === undefined) ?? this.add();
    held.owner = owner;
    held.users += 1;
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      held.users -= 1;
      if (held.users === 0) this.idle(held);
    };
    try {
      const zygote = await held.zygote;
      if (zygote.alive) return { zygote, release };
      // Died since: the next step (or this one, tried once more) starts a new one.
      this.drop(held);
      release();
      return this.acquire(owner);
    } catch (err) {
      this.drop(held);
      release();
      throw err;
    }
  }

  /** Starts an idle zygote ahead of the first step. */
  async warm(): Promise<Zygote> {
    const held = this.held.find((h) => h.owner === undefined) ?? this.add();
    return held.zygote.catch((err: unknown) => {
      this.drop(held);
      throw err;
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const all = this.held.splice(0);
    await Promise.all(all.map(async (h) => (await h.zygote.catch(() => undefined))?.kill()));
  }

  private add(): Held {
    const held: Held = { zygote: this.start(), owner: undefined, users: 0 };
    this.held.push(held);
    return held;
  }

  private idle(held: Held): void {
    held.owner = undefined;
    const idle = this.held.filter((h) => h.owner === undefined);
    if (idle.length <= MAX_IDLE) return;
    this.drop(held);
    void held.zygote.then(
      (z) => z.kill(),
      () => undefined,
    );
  }

  private drop(held: Held): void {
    const i = this.held.indexOf(held);
    if (i >= 0) this.held.splice(i, 1);
  }
}
