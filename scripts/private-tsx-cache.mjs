// tsx keeps its compile cache in <tmpdir>/tsx-<uid>, in a directory anyone could have made first
// in a shared /tmp: whoever owns it could rewrite the code this service loads next. So before
// the service or the tests start, the directory exists, is this user's, and only this user's.
import { chmodSync, lstatSync, mkdirSync, rmSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";

const uid = process.geteuid?.() ?? userInfo().username;
const dir = join(tmpdir(), `tsx-${uid}`);
const stat = lstatSync(dir, { throwIfNoEntry: false });
if (stat && (!stat.isDirectory() || stat.uid !== process.geteuid?.())) {
  // Not ours (or not a directory): nothing in it can be trusted, and root may remove it.
  process.stderr.write(`[wf] ${dir} is not this user's own directory: removing it (tsx's compile cache goes there)\n`);
  rmSync(dir, { recursive: true, force: true });
}
mkdirSync(dir, { recursive: true, mode: 0o700 });
chmodSync(dir, 0o700);
