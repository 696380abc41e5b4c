/**
 * What each owner's recent expressions say about how it may use the expression hosts. A job sent to
 * a host is taken back only once the job ahead of it has run `slowMs` and another owner waits, so
 * an owner may have only so many there at once, running or queued: one per host to start with, one
 * more for each that ran quicker than `slowMs`, back to one per host as soon as one ran that long,
 * and none queued behind its jobs while its last was that slow. An owner with nothing in the hosts
 * is forgotten (docs/sandbox.md#what-tenants-share).
 */
export class OwnerAllowance {
  private readonly owners = new Map<string, { inHosts: number; allowed: number; slow: boolean }>();

  constructor(
    private readonly least: number,
    private readonly most: number,
    private readonly slowMs: number,
  ) {}

  mayAdd(owner: string): boolean {
    const o = this.owners.get(owner);
    return !o || o.inHosts < o.allowed;
  }

  /** Whether the owner's last job ran `slowMs` or longer: then no job should wait behind one of its. */
  slow(owner: string): boolean {
    return this.owners.get(owner)?.slow ?? false;
  }

  added(owner: string): void {
    const o = this.owners.get(owner);
    if (o) o.inHosts++;
    else this.owners.set(owner, { inHosts: 1, allowed: this.least, slow: false });
  }

  /** One of the owner's jobs has left the hosts, after running `ranMs` (undefined: it did not run). */
  removed(owner: string, ranMs: number | undefined): void {
    const o = this.owners.get(owner)!;
    if (ranMs !== undefined) {
      o.slow = ranMs >= this.slowMs;
      o.allowed = o.slow ? this.least : Math.min(o.allowed + 1, this.most);
    }
    if (--o.inHosts === 0) this.owners.delete(owner);
  }
}
