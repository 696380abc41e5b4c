import { chownSync, existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** cgroup v1 hierarchies, each mounted at /sys/fs/cgroup/<controller>. */
const HIERARCHIES = "/sys/fs/cgroup";
const CONTROLLERS = ["pids", "memory", "cpu"] as const;
export type Controller = (typeof CONTROLLERS)[number];
const CPU_PERIOD_US = 100_000;
/** A step whose peak came this close to its memory limit was killed at it. */
const PEAK_SLACK_BYTES = 1024 * 1024;
/** How long removing a step's cgroup keeps killing what is in it before giving up. */
const REMOVE_TRIES = 50;
const REMOVE_INTERVAL_MS = 20;

export interface CgroupLimits {
  processes: number;
  memoryMb: number;
  /** CPUs a step may use at once (a CFS quota), so that no step takes every core from the service. */
  cpus: number;
}

/** What the runner process itself may take: its JavaScript isolates, egress proxy and zygotes. */
export interface RunnerLimits {
  memoryMb: number;
  /** A CFS quota, in CPUs. */
  cpus: number;
}

const RUNNER_CGROUP = "runner";
/** Where the steps' cgroups are made, under the runner's: the bound of all its steps together. */
const STEPS_CGROUP = "steps";

/** What one runner's processes may take together. */
export interface StepsBound {
  /** Memory of its process steps together. */
  memoryMb: number;
  /** CPUs of everything it runs together (a CFS quota): its steps, its JavaScript host, itself. */
  cpus: number;
}

/**
 * A cgroup per step in each of the pids, memory and cpu hierarchies, nested under one for all the
 * runner's steps and the runner's own, so that what contains the service contains its steps
 * (docs/sandbox.md#limits). The step's first process joins by writing its pid to `cgroup.procs`, the
 * one file given to the sandbox's uid; the limits stay the host root's. A cgroup counts and lists all
 * of a step's processes, so that everything a step started is found and killed.
 */
export class StepCgroups {
  /** Where the runner process was before it joined its own cgroups, per controller. */
  private readonly confined = new Map<Controller, string>();
  private made = 1;

  /** The directory the steps' cgroups are made in, per controller. */
  readonly dirs: ReadonlyMap<Controller, string>;

  private constructor(
    /** The runner's cgroup directory per controller available here. */
    private readonly roots: ReadonlyMap<Controller, string>,
    /** Who writes a step's first pid into its cgroups, if not this process's uid. */
    private readonly joinerUid: number | undefined,
    readonly bound: StepsBound,
  ) {
    this.dirs = new Map([...roots].map(([controller, root]) => [controller, join(root, STEPS_CGROUP)]));
  }

  /** The runner's cgroups, or undefined where none of the controllers can be used. */
  static create(joinerUid: number | undefined, bound: StepsBound): StepCgroups | undefined {
    const roots = new Map<Controller, string>();
    for (const controller of CONTROLLERS) {
      try {
        const parent = join(HIERARCHIES, controller, ownCgroup(controller), "wf-sandbox");
        if (!existsSync(join(HIERARCHIES, controller, "cgroup.procs"))) continue;
        mkdirSync(parent, { recursive: true });
        removeStale(parent);
        const root = join(parent, String(process.pid));
        const steps = join(root, STEPS_CGROUP);
        mkdirSync(steps, { recursive: true });
        if (controller === "memory")
          for (const [file, value] of memoryLimit(bound.memoryMb, steps)) writeFileSync(join(steps, file), value);
        if (controller === "cpu")
          for (const [file, value] of cpuQuota(bound.cpus)) writeFileSync(join(root, file), value);
        roots.set(controller, root);
      } catch {
        // not mounted here, or not ours to write: the limits it gives are reported missing
      }
    }
    return roots.size > 0 ? new StepCgroups(roots, joinerUid, bound) : undefined;
  }

  /**
   * A cgroup per controller, limits set, for a step's first process to join: made with the step's
   * process, usually ahead of the step (step-spares.ts).
   */
  open(limits: CgroupLimits): StepCgroup {
    const paths = new Map<Controller, string>();
    const step = new StepCgroup(paths, limits, this.bound);
    const name = `step-${this.made++}`;
    try {
      for (const [controller, dir] of this.dirs) {
        const path = join(dir, name);
        mkdirSync(path);
        paths.set(controller, path);
        for (const [file, value] of settings(controller, limits, path)) writeFileSync(join(path, file), value);
        if (this.joinerUid !== undefined) chownSync(join(path, "cgroup.procs"), this.joinerUid, this.joinerUid);
      }
    } catch (err) {
      void step.remove();
      throw err;
    }
    return step;
  }

  /**
   * Moves this process (the runner, every thread: its isolates run on threads of their own) into
   * memory and cpu cgroups of its own beside its steps': a bound that holds whatever the
   * isolates' own accounting misses. Returns the limits it could set, as the start-up log says them.
   */
  confineRunner(limits: RunnerLimits): string[] {
    const set: string[] = [];
    for (const controller of ["memory", "cpu"] as const) {
      const root = this.roots.get(controller);
      if (!root) continue;
      const path = join(root, RUNNER_CGROUP);
      mkdirSync(path, { recursive: true });
      for (const [file, value] of settings(controller, { processes: 0, ...limits }, path))
        writeFileSync(join(path, file), value);
      this.confined.set(controller, join(HIERARCHIES, controller, ownCgroup(controller)));
      writeFileSync(join(path, "cgroup.procs"), String(process.pid));
      set.push(
        controller === "memory"
          ? `runner memory ${limits.memoryMb} MB (memory cgroup)`
          : `runner CPU ${limits.cpus} (cpu cgroup)`,
      );
    }
    return set;
  }

  /** Kills what is left in the runner's cgroups and removes them. */
  async close(): Promise<void> {
    // Out of its own cgroups first: removing them kills what is in them.
    for (const [controller, before] of this.confined) {
      try {
        writeFileSync(join(before, "cgroup.procs"), String(process.pid));
      } catch {
        // its old cgroup is gone: it stays, and is killed with its own
      }
      this.confined.delete(controller);
    }
    await Promise.all([...this.roots.values()].map(removeTree));
  }
}

export class StepCgroup {
  constructor(
    /** The step's cgroup directory, per controller, on the host. */
    readonly paths: ReadonlyMap<Controller, string>,
    private readonly limits: CgroupLimits,
    private readonly bound: StepsBound,
  ) {}

  /** Why the step must be (or was) stopped: a fork refused at the process limit, or memory run out. */
  limitReached(): string | undefined {
    const pids = this.paths.get("pids");
    if (pids && /^max [1-9]/m.test(read(join(pids, "pids.events"))))
      return `exceeded the limit of ${this.limits.processes} processes`;
    const memory = this.paths.get("memory");
    if (memory && /^oom_kill [1-9]/m.test(read(join(memory, "memory.oom_control")))) {
      // Killed at its own limit (its peak reached it: the kernel keeps no failure count here), or
      // as the biggest step when all of them reached theirs.
      const peak = Number(read(join(memory, "memory.max_usage_in_bytes")));
      if (peak + PEAK_SLACK_BYTES >= this.limits.memoryMb * 1024 * 1024)
        return `exceeded the memory limit of ${this.limits.memoryMb} MB`;
      return `was stopped as the biggest of the steps running when together they reached the runner's bound of ${this.bound.memoryMb} MB for process steps (WF_SANDBOX_STEPS_MEMORY_MB)`;
    }
    return undefined;
  }

  kill(): void {
    for (const path of this.paths.values()) killAll(path);
  }

  /** Kills what is left in each of its controllers' cgroups and removes them. */
  async remove(): Promise<void> {
    await Promise.all([...this.paths.values()].map(removeTree));
  }
}

function settings(controller: Controller, limits: CgroupLimits, path: string): Array<[string, string]> {
  switch (controller) {
    case "pids":
      return [["pids.max", String(limits.processes)]];
    case "memory":
      return memoryLimit(limits.memoryMb, path);
    case "cpu":
      return cpuQuota(limits.cpus);
  }
}

function cpuQuota(cpus: number): Array<[string, string]> {
  return [
    ["cpu.cfs_period_us", String(CPU_PERIOD_US)],
    ["cpu.cfs_quota_us", String(Math.round(cpus * CPU_PERIOD_US))],
  ];
}

function memoryLimit(memoryMb: number, path: string): Array<[string, string]> {
  const bytes = String(memoryMb * 1024 * 1024);
  // Where swap is accounted, memory plus swap is capped too: swap is no way around the limit.
  const swap: Array<[string, string]> = existsSync(join(path, "memory.memsw.limit_in_bytes"))
    ? [["memory.memsw.limit_in_bytes", bytes]]
    : [];
  return [["memory.limit_in_bytes", bytes], ...swap];
}

/** This process's cgroup in a v1 hierarchy, from /proc/self/cgroup ("4:memory:/a/b"). */
export function ownCgroup(controller: Controller): string {
  for (const line of readFileSync("/proc/self/cgroup", "utf8").split("\n")) {
    const [, names, path] = line.split(":");
    if (names?.split(",").includes(controller) && path !== undefined) return path;
  }
  return "/";
}

function read(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return "";
  }
}

function killAll(path: string): void {
  for (const pid of read(join(path, "cgroup.procs")).split("\n").filter(Boolean)) {
    try {
      process.kill(Number(pid), "SIGKILL");
    } catch {
      // gone already
    }
  }
}

/** Whether `path` is gone: removed here, being a cgroup without processes or cgroups below it, or before. */
function removeEmpty(path: string): boolean {
  try {
    rmdirSync(path);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ENOENT";
  }
}

/**
 * Kills and removes `path` and the cgroups below it; a cgroup goes once its processes have died. Most (a finished
 * step's) are empty by then: one removal, no listing and no read of their processes.
 */
async function removeTree(path: string): Promise<void> {
  if (removeEmpty(path)) return;
  let children: string[] = [];
  try {
    children = readdirSync(path, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => join(path, e.name));
  } catch {
    return;
  }
  await Promise.all(children.map(removeTree));
  for (let i = 0; i < REMOVE_TRIES; i++) {
    killAll(path);
    if (removeEmpty(path)) return;
    await new Promise((resolve) => setTimeout(resolve, REMOVE_INTERVAL_MS));
  }
}

/** Cgroups of runner processes that died without removing theirs (SIGKILL). */
function removeStale(parent: string): void {
  for (const name of readdirSync(parent)) {
    if (!/^\d+$/.test(name) || isRunning(Number(name))) continue;
    void removeTree(join(parent, name)).catch(() => undefined);
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
