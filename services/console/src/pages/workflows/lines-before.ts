import { commonLines } from "@wf/shared/text";

/** Lines `first` to `last` (1-based) of a text. */
export interface LineSpan {
  first: number;
  last: number;
}

/**
 * A run of whole lines that differs between two texts: lines `oldFrom` to `oldTo` (1-based) of the text before became
 * lines `from` to `newTo` of the text after. A run that ends before its start is empty: lines only added, or only
 * removed.
 */
export interface LineEdit {
  oldFrom: number;
  from: number;
  oldTo: number;
  newTo: number;
}

/** The run of lines from the first that differs between `old` and `now` to the last, as one edit. */
export function lineEdit(old: readonly string[], now: readonly string[]): LineEdit {
  let head = 0;
  while (head < old.length && head < now.length && old[head] === now[head]) head++;
  let tail = 0;
  while (
    tail < old.length - head &&
    tail < now.length - head &&
    old[old.length - 1 - tail] === now[now.length - 1 - tail]
  )
    tail++;
  return { oldFrom: head + 1, from: head + 1, oldTo: old.length - tail, newTo: now.length - tail };
}

/**
 * Past this many line pairs between the first and the last line that differ, the lines kept are not looked for: the
 * edit is taken whole (a table of this many entries is a few megabytes, filled in a few milliseconds per keystroke).
 */
const MAX_PAIRS = 1_000_000;

/**
 * Each run of lines that differs between `old` and `now`, in order, around the longest run of lines both keep (not
 * necessarily next to each other): two mistakes made far apart are two edits. One edit, as lineEdit, when the span
 * between the first and the last line that differ is too wide to compare (MAX_PAIRS).
 */
export function lineEdits(old: readonly string[], now: readonly string[]): LineEdit[] {
  const whole = lineEdit(old, now);
  const head = whole.from - 1;
  const a = old.slice(head, whole.oldTo);
  const b = now.slice(head, whole.newTo);
  if (a.length === 0 && b.length === 0) return [];
  if (a.length === 0 || b.length === 0 || a.length * b.length > MAX_PAIRS) return [whole];
  const kept = commonLines(a, b);
  const edits: LineEdit[] = [];
  let open: LineEdit | undefined;
  const close = () => {
    if (open) edits.push(open);
    open = undefined;
  };
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      close();
      i++;
      j++;
      continue;
    }
    open ??= { oldFrom: head + i + 1, from: head + j + 1, oldTo: head + i, newTo: head + j };
    if (j < b.length && (i === a.length || kept(i, j + 1) >= kept(i + 1, j))) open.newTo = head + ++j;
    else open.oldTo = head + ++i;
  }
  close();
  return edits;
}

/**
 * Where each line of `after` was in `before`, taking what differs between them as edits (see lineEdits). Outside them
 * a line is the same line, moved by what the edits before it added or removed; inside one, a line stands for every
 * line that edit replaced, or, where it only added lines, for the two lines it added them between.
 */
export function linesBefore(
  before: string,
  after: string,
  edits = lineEdits(before.split("\n"), after.split("\n")),
): (line: number) => LineSpan {
  return (line) => {
    let shift = 0;
    for (const { oldFrom, from, oldTo, newTo } of edits) {
      if (line < from) break;
      if (line <= newTo)
        return oldTo >= oldFrom ? { first: oldFrom, last: oldTo } : { first: oldFrom - 1, last: oldFrom };
      shift = oldTo - newTo;
    }
    return { first: line + shift, last: line + shift };
  };
}
