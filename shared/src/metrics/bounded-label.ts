/**
 * A label whose values come from outside the code (a model name a workflow asks for): the first
 * `limit` distinct values are kept, any later one is counted as `other`, so that no input can
 * grow a metric without bound.
 */
export class BoundedLabel {
  private readonly seen = new Set<string>();

  constructor(private readonly limit: number) {}

  of(value: string): string {
    if (this.seen.has(value)) return value;
    if (this.seen.size >= this.limit) return "other";
    this.seen.add(value);
    return value;
  }
}
