// Lets `npm start` and `npm test` work on a fresh clone: installs dependencies when they are
// missing or older than package-lock.json. Plain JavaScript on purpose: it runs before tsx exists.
import { existsSync, statSync, utimesSync } from "node:fs";
import { execSync } from "node:child_process";

const marker = "node_modules/.package-lock.json";
const stale = !existsSync(marker) || statSync(marker).mtimeMs < statSync("package-lock.json").mtimeMs;
if (stale) {
  process.stderr.write("[wf] installing dependencies (npm install)…\n");
  execSync("npm install --no-audit --no-fund", { stdio: "inherit" });
  // npm leaves the marker alone when nothing changed; without this every start would reinstall.
  const now = new Date();
  utimesSync(marker, now, now);
}
