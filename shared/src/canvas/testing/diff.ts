/**
 * Which lines a change removed from `before` and added to `after` (0-based), by a longest common subsequence of lines.
 */
export function lineDiff(before: string, after: string): { removed: number[]; added: number[] } {
  const a = before.split("\n");
  const b = after.split("\n");
  const width = b.length + 1;
  const lcs = new Uint32Array((a.length + 1) * width);
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lcs[i * width + j] =
        a[i] === b[j]
          ? (lcs[(i + 1) * width + j + 1] as number) + 1
          : Math.max(lcs[(i + 1) * width + j] as number, lcs[i * width + j + 1] as number);
    }
  }
  const removed: number[] = [];
  const added: number[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      i++;
      j++;
    } else if (
      j < b.length &&
      (i === a.length || (lcs[i * width + j + 1] as number) >= (lcs[(i + 1) * width + j] as number))
    )
      added.push(j++);
    else removed.push(i++);
  }
  return { removed, added };
}

/** 0-based line of an offset. */
export function lineOf(text: string, offset: number): number {
  let line = 0;
  for (let i = text.indexOf("\n"); i >= 0 && i < offset; i = text.indexOf("\n", i + 1)) line++;
  return line;
}

/** The lines holding only a comment, each as written. */
export function commentLines(text: string): string[] {
  return text.split("\n").filter((line) => line.trimStart().startsWith("#"));
}

/** How many times each item occurs. */
export function counts(items: readonly string[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const item of items) out.set(item, (out.get(item) ?? 0) + 1);
  return out;
}
