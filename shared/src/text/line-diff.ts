import type { DiffLine } from "../api/console-workflows";
import { commonLines } from "./common-lines";

/** Beyond this many cells the middle (after common head and tail) is shown as removed then added. */
const MAX_LCS_CELLS = 4_000_000;

/** A line diff by longest common subsequence: every line of both texts, in order. */
export function lineDiff(fromText: string, toText: string): DiffLine[] {
  const a = fromText.split("\n");
  const b = toText.split("\n");
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const same = (line: string): DiffLine => ({ op: "same", line });
  const x = a.slice(head, a.length - tail);
  const y = b.slice(head, b.length - tail);
  const middle: DiffLine[] = [];
  if ((x.length + 1) * (y.length + 1) > MAX_LCS_CELLS) {
    middle.push(
      ...x.map((line): DiffLine => ({ op: "remove", line })),
      ...y.map((line): DiffLine => ({ op: "add", line })),
    );
  } else {
    const kept = commonLines(x, y);
    let i = 0;
    let j = 0;
    while (i < x.length && j < y.length) {
      if (x[i] === y[j]) {
        middle.push(same(x[i]!));
        i++;
        j++;
      } else if (kept(i + 1, j) >= kept(i, j + 1)) middle.push({ op: "remove", line: x[i++]! });
      else middle.push({ op: "add", line: y[j++]! });
    }
    while (i < x.length) middle.push({ op: "remove", line: x[i++]! });
    while (j < y.length) middle.push({ op: "add", line: y[j++]! });
  }
  return [...a.slice(0, head).map(same), ...middle, ...a.slice(a.length - tail).map(same)];
}
