// Types of stale-build.mjs, which is plain JavaScript: it runs before tsx exists.
export function sourceDigest(root: string, inputs: readonly string[], skip?: (path: string) => boolean): string;
export function stampOf(buildDir: string): string;
export function withBuildLock(lock: string, build: () => void): void;
