import type { z } from "zod";

/**
 * The newest report of each process that reports on a core NATS subject (the edges' trigger latencies, the executors'
 * lane backlogs), each counting for `heardMs`: a process that has nothing to report says nothing, and is then not
 * heard. At most `maxReporters` are kept (past a real fleet, the rest are forged or gone); a report that does not parse
 * against `schema` is dropped.
 */
export class LatestReports<T> {
  readonly #latest = new Map<string, { report: T; at: number }>();

  constructor(
    private readonly schema: z.ZodType<T>,
    /** The process a report is from. */
    private readonly reporterOf: (report: T) => string,
    private readonly heardMs: number,
    private readonly maxReporters: number,
    private readonly now: () => number = Date.now,
  ) {}

  heard(data: Uint8Array | string): void {
    let report: T;
    try {
      const text = typeof data === "string" ? data : Buffer.from(data).toString("utf8");
      report = this.schema.parse(JSON.parse(text));
    } catch {
      return;
    }
    const at = this.now();
    const reporter = this.reporterOf(report);
    if (!this.#latest.has(reporter) && this.#latest.size >= this.maxReporters) {
      this.#forgetSilent(at);
      if (this.#latest.size >= this.maxReporters) return;
    }
    this.#latest.set(reporter, { report, at });
  }

  /** The reports heard within `heardMs` of `at`. */
  *current(at = this.now()): IterableIterator<T> {
    this.#forgetSilent(at);
    for (const { report } of this.#latest.values()) yield report;
  }

  #forgetSilent(at: number): void {
    for (const [reporter, heard] of this.#latest) if (at - heard.at > this.heardMs) this.#latest.delete(reporter);
  }
}
