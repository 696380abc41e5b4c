import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { join } from "node:path";

/** One run's private directory (mode 0700, from mkdtemp): the step's cwd and HOME, with WF_ARTIFACTS_DIR inside. */
interface RunDir {
  path: string;
  artifacts: string;
}

export async function createRunDir(parent: string): Promise<RunDir> {
  const path = await mkdtemp(join(parent, "run-"));
  const artifacts = join(path, "artifacts");
  await mkdir(artifacts);
  return { path, artifacts };
}

/** Best effort, once the step's processes are dead; what is left goes with the runner's directory. */
export async function removeRunDir(dir: RunDir): Promise<void> {
  await rm(dir.path, { recursive: true, force: true, maxRetries: 2 }).catch(() => undefined);
}
