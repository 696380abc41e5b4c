/** Lines `first` to `last` (1-based) of a text. */
export interface LineSpan {
  first: number;
  last: number;
}

/**
 * Where each line of `after` was in `before`, taking what differs between them as one edit: the run of lines from the
 * first that differs to the last. Outside it a line is the same line, moved by what the edit added or removed; inside
 * it, a line stands for every line the edit replaced, or, where the edit only added lines, for the two lines it added
 * them between. Two edits far apart are then one wide edit, inside which nothing is told apart.
 */
export function linesBefore(before: string, after: string): (line: number) => LineSpan {
  const old = before.split("\n");
  const now = after.split("\n");
  let head = 0;
  while (head < old.length && head < now.length && old[head] === now[head]) head++;
  let tail = 0;
  while (
    tail < old.length - head &&
    tail < now.length - head &&
    old[old.length - 1 - tail] === now[now.length - 1 - tail]
  )
    tail++;
  const replaced: LineSpan =
    old.length - tail > head ? { first: head + 1, last: old.length - tail } : { first: head, last: head + 1 };
  return (line) => {
    if (line <= head) return { first: line, last: line };
    if (line > now.length - tail) {
      const moved = line - now.length + old.length;
      return { first: moved, last: moved };
    }
    return replaced;
  };
}
