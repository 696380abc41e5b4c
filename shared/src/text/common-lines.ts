/**
 * The longest common subsequence table of two lists of lines: `kept(i, j)` is how many lines `a[i..]` and `b[j..]`
 * keep in common at most. A diff walks it from (0, 0), taking a line of `a` or of `b` where they differ by which
 * leaves more in common. Its size is `(a.length + 1) * (b.length + 1)` entries: callers bound it.
 */
export function commonLines(a: readonly string[], b: readonly string[]): (i: number, j: number) => number {
  const width = b.length + 1;
  const kept = new Uint32Array((a.length + 1) * width);
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--)
      kept[i * width + j] =
        a[i] === b[j]
          ? kept[(i + 1) * width + j + 1]! + 1
          : Math.max(kept[(i + 1) * width + j]!, kept[i * width + j + 1]!);
  return (i, j) => kept[i * width + j]!;
}
