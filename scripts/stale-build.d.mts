// Types of stale-build.mjs, which is plain JavaScript: it runs before tsx exists.
export function sourceDigest(root: string, inputs: readonly string[]): string;
export function buildWhenStale(
  opts: { want: string; buildDir: string; lock: string; force: boolean },
  build: (have: string) => void,
): void;
