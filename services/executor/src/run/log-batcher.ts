const MAX_LINES = 50;
/** Lines are cut at 8,192 characters: 50 long ones of multi-byte text would pass an event's room. */
const MAX_BYTES = 16 * 1024;
const MAX_DELAY_MS = 100;

/**
 * Gathers a running step's log lines into batches (50 lines, 16 KB or 100 ms, whichever comes
 * first), so a chatty step costs a few events a second rather than one per line.
 */
export class LogBatcher {
  private lines: string[] = [];
  private bytes = 0;
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly send: (lines: string[]) => void) {}

  readonly add = (line: string): void => {
    this.lines.push(line);
    this.bytes += Buffer.byteLength(line);
    if (this.lines.length >= MAX_LINES || this.bytes >= MAX_BYTES) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), MAX_DELAY_MS);
  };

  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (!this.lines.length) return;
    const batch = this.lines;
    this.lines = [];
    this.bytes = 0;
    this.send(batch);
  }
}
