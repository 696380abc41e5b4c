const MAX_LINES = 50;
const MAX_DELAY_MS = 100;

/**
 * Gathers a running step's log lines into batches (50 lines or 100 ms, whichever comes first),
 * so a chatty step costs a few events a second rather than one per line.
 */
export class LogBatcher {
  private lines: string[] = [];
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly send: (lines: string[]) => void) {}

  readonly add = (line: string): void => {
    this.lines.push(line);
    if (this.lines.length >= MAX_LINES) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), MAX_DELAY_MS);
  };

  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (!this.lines.length) return;
    const batch = this.lines;
    this.lines = [];
    this.send(batch);
  }
}
