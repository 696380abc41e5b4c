/** Whether a nats-server's version (as its INFO gives it, `2.10.4` or `v2.10.4`) is `major.minor` or newer. */
export function serverAtLeast(version: string | undefined, major: number, minor: number): boolean {
  const [have = 0, haveMinor = 0] = (version ?? "").replace(/^v/, "").split(".").map(Number);
  return have > major || (have === major && haveMinor >= minor);
}

/**
 * What to warn of a nats-server (its INFO) in a cluster older than 2.10: there, two compare-and-set writes of one key
 * at the same revision, made at once through different servers, both win (63 of 100 pairs on 2.9.10, 0 on 2.15.1,
 * 2026-12-07), so two writers of one execution or approval can each think its write the only one. Null otherwise.
 */
export function clusterCasWarning(info: { version?: string; cluster?: string } | undefined): string | null {
  if (!info?.cluster || serverAtLeast(info.version, 2, 10)) return null;
  return (
    `nats-server ${info.version ?? "?"} in cluster ${info.cluster} lets two compare-and-set writes of one record at ` +
    "the same revision both win: an execution or approval may be written by two writers at once. Run nats-server " +
    "2.10 or newer in a cluster (docs/operations.md)"
  );
}
