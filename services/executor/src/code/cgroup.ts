import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** The cgroup v1 pids hierarchy; under v2 (or without root) steps have no cgroup, and isolation() says so. */
const PIDS_ROOT = "/sys/fs/cgroup/pids";
const OURS = join(PIDS_ROOT, "wf-sandbox");
/** How long removing a step's cgroup keeps killing what is in it before giving up. */
const REMOVE_TRIES = 50;
const REMOVE_INTERVAL_MS = 20;

/**
 * One pids cgroup per step, under one per runner process: RLIMIT_NPROC counts every process of
 * the user (and nothing for root), while a cgroup counts exactly the step's processes, and lists
 * them, so that a process that left the step's process group is still found and killed.
 */
export class StepCgroups {
  private constructor(readonly path: string) {}

  /** The runner's cgroup, or undefined where pids cgroups cannot be made. */
  static create(): StepCgroups | undefined {
    try {
      if (!existsSync(join(PIDS_ROOT, "cgroup.procs"))) return undefined;
      mkdirSync(OURS, { recursive: true });
      removeStale();
      const path = join(OURS, String(process.pid));
      mkdirSync(path, { recursive: true });
      return new StepCgroups(path);
    } catch {
      return undefined;
    }
  }

  /** A cgroup for run `id` allowing `maxPids` processes and threads, for its process to join. */
  open(id: number, maxPids: number): StepCgroup {
    const path = join(this.path, `run-${id}`);
    mkdirSync(path);
    writeFileSync(join(path, "pids.max"), String(maxPids));
    return new StepCgroup(path, maxPids);
  }

  /** Kills what is left in the runner's cgroups and removes them. */
  async close(): Promise<void> {
    await removeTree(this.path);
  }
}

export class StepCgroup {
  constructor(
    readonly path: string,
    private readonly maxPids: number,
  ) {}

  /** Whether a fork was refused at the limit: the step is then stopped. */
  limitReached(): string | undefined {
    try {
      const events = readFileSync(join(this.path, "pids.events"), "utf8");
      return /^max [1-9]/m.test(events) ? `exceeded the limit of ${this.maxPids} processes` : undefined;
    } catch {
      return undefined;
    }
  }

  kill(): void {
    killAll(this.path);
  }

  async remove(): Promise<void> {
    await removeTree(this.path);
  }
}

function killAll(path: string): void {
  let pids: string[];
  try {
    pids = readFileSync(join(path, "cgroup.procs"), "utf8").split("\n").filter(Boolean);
  } catch {
    return;
  }
  for (const pid of pids) {
    try {
      process.kill(Number(pid), "SIGKILL");
    } catch {
      // gone already
    }
  }
}

/** Kills and removes `path` and the cgroups below it; a cgroup goes once its processes have died. */
async function removeTree(path: string): Promise<void> {
  let children: string[] = [];
  try {
    children = readdirSync(path, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => join(path, e.name));
  } catch {
    return;
  }
  await Promise.all(children.map(removeTree));
  for (let i = 0; i < REMOVE_TRIES; i++) {
    killAll(path);
    try {
      rmdirSync(path);
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return;
    }
    await new Promise((resolve) => setTimeout(resolve, REMOVE_INTERVAL_MS));
  }
}

/** Cgroups of runner processes that died without removing theirs (SIGKILL). */
function removeStale(): void {
  for (const name of readdirSync(OURS)) {
    if (!/^\d+$/.test(name) || isRunning(Number(name))) continue;
    void removeTree(join(OURS, name)).catch(() => undefined);
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
