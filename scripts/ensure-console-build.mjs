// Lets `npm start` serve the console with no extra command: builds services/console when its
// build is missing or was made from other sources. Staleness is a digest of the sources' contents
// (not times, which a fresh clone sets all alike), kept beside the build. `--force` always builds.
import { createHash } from "node:crypto";
import {
  closeSync,
  existsSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join, relative } from "node:path";
import { execFileSync } from "node:child_process";

const root = new URL("..", import.meta.url).pathname;
const app = join(root, "services/console");
const stamp = join(app, "dist/.source-digest");
// The app imports shared/ (API types, the workflow validator), so shared's sources count too.
const inputs = [
  join(app, "src"),
  join(app, "public"),
  join(app, "index.html"),
  join(app, "vite.config.ts"),
  join(app, "package.json"),
  join(root, "shared/src"),
  join(root, "shared/schema"),
  join(root, "package-lock.json"),
];

function digest() {
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

// Several starts at once (tests in parallel, replicas of one checkout) build once: the first takes
// the lock, the others wait for it and then find the build fresh. A lock older than the longest
// build is one its holder left behind when it was killed.
const lock = join(app, ".build.lock");
const STALE_LOCK_MS = 5 * 60_000;
function acquire() {
  const deadline = Date.now() + STALE_LOCK_MS;
  for (;;) {
    try {
      closeSync(openSync(lock, "wx"));
      return;
    } catch (err) {
      if (err.code !== "EEXIST") throw err;
      if (Date.now() - statSync(lock, { throwIfNoEntry: false })?.mtimeMs > STALE_LOCK_MS || Date.now() > deadline)
        rmSync(lock, { force: true });
      else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
    }
  }
}

const want = digest();
const force = process.argv.includes("--force");
const current = () => (existsSync(stamp) ? readFileSync(stamp, "utf8").trim() : "");
if (force || want !== current()) {
  acquire();
  try {
    const have = current();
    if (force || want !== have) {
      process.stderr.write(`[wf] building the console (${have === "" ? "no build yet" : "its sources changed"})…\n`);
      // Built beside, then swapped in by renames: an edge starting meanwhile reads a whole build.
      const fresh = join(app, `.dist-${process.pid}`);
      const old = join(app, `.dist-old-${process.pid}`);
      execFileSync(
        process.execPath,
        [
          join(root, "node_modules/vite/bin/vite.js"),
          "build",
          "--logLevel",
          "warn",
          "--outDir",
          fresh,
          "--emptyOutDir",
        ],
        {
          cwd: app,
          stdio: "inherit",
          // A start from inside a test runner inherits NODE_ENV=test, with which Vite bundles React's development build
          // (StrictMode's doubled effects, slower renders): the console is always built for production.
          env: { ...process.env, NODE_ENV: "production" },
        },
      );
      writeFileSync(join(fresh, ".source-digest"), `${want}\n`);
      if (existsSync(join(app, "dist"))) renameSync(join(app, "dist"), old);
      renameSync(fresh, join(app, "dist"));
      rmSync(old, { recursive: true, force: true });
    }
  } finally {
    rmSync(lock, { force: true });
  }
}
