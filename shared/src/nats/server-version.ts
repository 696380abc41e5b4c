/** Whether a nats-server's version (as its INFO gives it, `2.10.4` or `v2.10.4`) is `major.minor` or newer. */
export function serverAtLeast(version: string | undefined, major: number, minor: number): boolean {
  const [have = 0, haveMinor = 0] = (version ?? "").replace(/^v/, "").split(".").map(Number);
  return have > major || (have === major && haveMinor >= minor);
}
