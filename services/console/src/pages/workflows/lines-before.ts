/** Lines `first` to `last` (1-based) of a text. */
export interface LineSpan {
  first: number;
  last: number;
}

/**
 * What differs between two texts, taken as one edit of whole lines: lines `from` to `oldTo` (1-based) of the text
 * before became lines `from` to `newTo` of the text after. A run that ends before `from` is empty: lines only added, or
 * only removed.
 */
export interface LineEdit {
  from: number;
  oldTo: number;
  newTo: number;
}

/** The run of lines from the first that differs between `old` and `now` to the last. */
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
  return { from: head + 1, oldTo: old.length - tail, newTo: now.length - tail };
}

/**
 * Where each line of `after` was in `before`, taking what differs between them as one edit (see lineEdit). Outside it a
 * line is the same line, moved by what the edit added or removed; inside it, a line stands for every line the edit
 * replaced, or, where the edit only added lines, for the two lines it added them between. Two edits far apart are then
 * one wide edit, inside which nothing is told apart.
 */
export function linesBefore(before: string, after: string): (line: number) => LineSpan {
  const { from, oldTo, newTo } = lineEdit(before.split("\n"), after.split("\n"));
  const replaced: LineSpan = oldTo >= from ? { first: from, last: oldTo } : { first: from - 1, last: from };
  return (line) => {
    if (line < from) return { first: line, last: line };
    if (line > newTo) {
      const moved = line - newTo + oldTo;
      return { first: moved, last: moved };
    }
    return replaced;
  };
}
