// What the build-when-needed scripts share (ensure-console-build.mjs, ensure-service-build.mjs): a digest of the
// sources a build was made from, and a lock so that several starts at once build once. Plain JavaScript on purpose:
// it runs before tsx exists.
import { createHash } from "node:crypto";
import { closeSync, existsSync, openSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join, relative } from "node:path";

/**
 * A digest of the contents of `inputs` (files, or folders walked in name order), with their paths from `root`:
 * not times, which a fresh clone sets all alike. Dependencies and tests are left out.
 */
export function sourceDigest(root, inputs) {
  const hash = createHash("sha256");
  const add = (path) => {
    if (!existsSync(path)) return;
    if (statSync(path).isDirectory()) {
      for (const name of readdirSync(path).sort())
        if (name !== "node_modules" && !name.endsWith(".test.ts")) add(join(path, name));
      return;
    }
    hash.update(relative(root, path)).update("\0").update(readFileSync(path)).update("\0");
  };
  for (const input of inputs) add(input);
  return hash.digest("hex");
}

/** The digest a build was stamped with (`.source-digest` in it), or "" when there is none. */
function stampOf(buildDir) {
  const stamp = join(buildDir, ".source-digest");
  return existsSync(stamp) ? readFileSync(stamp, "utf8").trim() : "";
}

/** A lock older than the longest build is one its holder left behind when it was killed. */
const STALE_LOCK_MS = 5 * 60_000;

/**
 * Calls `build(have)` when the build in `buildDir` is not stamped `want` (or with `force`), `have` being its stamp
 * ("" for none); `build` makes and stamps it. Several starts at once (tests in parallel, replicas of one checkout) build once:
 * the first takes the lock file `lock`, the others wait for it and then find the build fresh.
 */
export function buildWhenStale({ want, buildDir, lock, force }, build) {
  if (!force && want === stampOf(buildDir)) return;
  withBuildLock(lock, () => {
    const have = stampOf(buildDir);
    if (force || want !== have) build(have);
  });
}

/** Runs `build` holding the lock file `lock`, waiting for another holder to finish first. */
function withBuildLock(lock, build) {
  const deadline = Date.now() + STALE_LOCK_MS;
  for (;;) {
    try {
      closeSync(openSync(lock, "wx"));
      break;
    } catch (err) {
      if (err.code !== "EEXIST") throw err;
      if (Date.now() - statSync(lock, { throwIfNoEntry: false })?.mtimeMs > STALE_LOCK_MS || Date.now() > deadline)
        rmSync(lock, { force: true });
      else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
    }
  }
  try {
    build();
  } finally {
    rmSync(lock, { force: true });
  }
}
