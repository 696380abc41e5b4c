import { createInterface } from "node:readline";

/**
 * Lines of standard input, read only when asked for: the prompt waits at a pause, while events
 * are printed between pauses. A terminal gets the prompt's echo; a pipe (tests, scripts) the same
 * lines without it. `next()` gives null once the input has ended.
 */
export class LineReader {
  private readonly lines: string[] = [];
  private waiting: ((line: string | null) => void) | undefined;
  private ended = false;
  private readonly rl = createInterface({ input: process.stdin, terminal: false });

  constructor() {
    this.rl.on("line", (line) => {
      if (this.waiting) {
        const resolve = this.waiting;
        this.waiting = undefined;
        resolve(line);
      } else this.lines.push(line);
    });
    this.rl.on("close", () => {
      this.ended = true;
      this.waiting?.(null);
      this.waiting = undefined;
    });
  }

  async next(prompt: string): Promise<string | null> {
    process.stdout.write(prompt);
    const line =
      this.lines.shift() ??
      (this.ended ? null : await new Promise<string | null>((resolve) => (this.waiting = resolve)));
    // A terminal echoes what was typed; from a pipe, the transcript shows it after its prompt all the same.
    if (!process.stdin.isTTY) process.stdout.write(`${line ?? ""}\n`);
    return line;
  }

  close(): void {
    this.rl.close();
  }
}
