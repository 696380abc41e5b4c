import { commonLines } from "../../text/common-lines";

/**
 * Which lines a change removed from `before` and added to `after` (0-based), by a longest common subsequence of lines.
 */
export function lineDiff(before: string, after: string): { removed: number[]; added: number[] } {
  const a = before.split("\n");
  const b = after.split("\n");
  const kept = commonLines(a, b);
  const removed: number[] = [];
  const added: number[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      i++;
      j++;
    } else if (j < b.length && (i === a.length || kept(i, j + 1) >= kept(i + 1, j))) added.push(j++);
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
