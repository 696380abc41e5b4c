// Lets `npm start` (and `npm run start:<service>`) run the service as the image does, from `npm run build`'s bundles in
// dist/: builds them when there are none or when they were made from other sources (a digest of the sources' contents,
// stale-build.mjs, kept in dist/.source-digest). Run from the TypeScript sources through tsx instead, the service spent
// about a tenth more CPU per workflow (tsx wraps every function made at run time to keep its name) and took twice as
// long to start. `--force` always builds: `npm run build`.
import { execFileSync } from "node:child_process";
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildWhenStale, sourceDigest } from "./stale-build.mjs";

const root = new URL("..", import.meta.url).pathname;
const dist = join(root, "dist");
// Everything the bundles are made from; the console by the digest of its own build, which dist/ copies.
const inputs = [
  ...readdirSync(join(root, "services"))
    .filter((name) => name !== "console")
    .map((name) => join(root, "services", name)),
  join(root, "services/console/dist/.source-digest"),
  join(root, "shared"),
  join(root, "cli"),
  join(root, "scripts/build"),
  join(root, "package.json"),
  join(root, "package-lock.json"),
];

// The console first: dist/ copies its build, and its digest is one of the inputs.
execFileSync(process.execPath, [join(root, "scripts/ensure-console-build.mjs")], { cwd: root, stdio: "inherit" });
const want = sourceDigest(root, inputs);
const force = process.argv.includes("--force");
buildWhenStale({ want, buildDir: dist, lock: join(root, ".build.lock"), force }, (have) => {
  if (!force)
    process.stderr.write(`[wf] building dist/ (${have === "" ? "no build stamped yet" : "its sources changed"})…\n`);
  execFileSync(process.execPath, ["--import", "tsx", join(root, "scripts/build/build.ts")], {
    cwd: root,
    stdio: "inherit",
  });
  writeFileSync(join(dist, ".source-digest"), `${want}\n`);
});
