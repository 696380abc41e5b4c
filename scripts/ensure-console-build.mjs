// Lets `npm start` serve the console with no extra command: builds services/console when its
// build is missing or was made from other sources. Staleness is a digest of the sources' contents
// (stale-build.mjs), kept beside the build. `--force` always builds.
import { existsSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execFileSync } from "node:child_process";
import { buildWhenStale, sourceDigest } from "./stale-build.mjs";

const root = new URL("..", import.meta.url).pathname;
const app = join(root, "services/console");
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

const want = sourceDigest(root, inputs);
const force = process.argv.includes("--force");
buildWhenStale({ want, buildDir: join(app, "dist"), lock: join(app, ".build.lock"), force }, (have) => {
  process.stderr.write(`[wf] building the console (${have === "" ? "no build yet" : "its sources changed"})…\n`);
  // Built beside, then swapped in by renames: an edge starting meanwhile reads a whole build.
  const fresh = join(app, `.dist-${process.pid}`);
  const old = join(app, `.dist-old-${process.pid}`);
  execFileSync(
    process.execPath,
    [join(root, "node_modules/vite/bin/vite.js"), "build", "--logLevel", "warn", "--outDir", fresh, "--emptyOutDir"],
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
});
