import type { CgroupLimits, StepCgroup } from "./cgroup";
import type { PreparedProcess, Zygote } from "./zygote";

/** Spare step processes kept per zygote. */
const SPARES = 2;

/** What a step's process is set up for before its step is known: a step that differs in any of it needs another. */
export interface StepShape {
  cgroup: CgroupLimits;
  /** Size of its private /tmp and /dev/shm (each). */
  tmpBytes: number;
}

/** A step's main process, set up (or being set up) for a step, and what it holds until it is gone. */
export interface PreparedStep {
  readonly proc: PreparedProcess;
  /** Its run directory, as this process reaches it. */
  readonly dir: string;
  /** Its run directory, as the zygote sees it. */
  readonly runDir: string;
  /** Its uid, as the zygote sees it. */
  readonly uid: number;
  readonly cgroup: StepCgroup | undefined;
  /** Gives back its uid, run directory and cgroups: once its processes are gone. */
  release(): void;
}

/**
 * Spare step processes per zygote: a step finds its process forked, in namespaces and cgroups of its
 * own, its mounts made, its privileges dropped. Making one takes milliseconds (a cgroup join may wait
 * for an RCU grace period), longer than a light step, so two are kept, each made once a step ended (a
 * zygote busy forking reports a step's end late). A spare serves one step, of the shape it was made for.
 */
export class StepSpares {
  private readonly spares = new Map<Zygote, Array<{ key: string; step: PreparedStep }>>();

  /** The oldest spare of `zygote` if it has the shape asked for; spares of another shape are discarded. */
  take(zygote: Zygote, shape: StepShape): PreparedStep | undefined {
    const spares = this.spares.get(zygote);
    if (!spares) return undefined;
    if (spares[0]?.key !== keyOf(shape)) {
      this.spares.delete(zygote);
      for (const spare of spares.splice(0)) discard(spare.step);
      return undefined;
    }
    const { step } = spares.shift()!;
    if (spares.length === 0) this.spares.delete(zygote);
    return step;
  }

  /** Has `make` prepare step processes of `shape` in `zygote` until it has its spares; `make` may decline. */
  refill(zygote: Zygote, shape: StepShape, make: () => PreparedStep | undefined): void {
    let spares = this.spares.get(zygote);
    while (zygote.alive && (spares?.length ?? 0) < SPARES) {
      const step = make();
      if (!step) return;
      if (!spares) this.spares.set(zygote, (spares = []));
      const held = spares;
      const spare = { key: keyOf(shape), step };
      held.push(spare);
      // A spare that dies unused (its zygote stopped, or its set-up failed) gives back what it held.
      const gone = (): void => {
        const i = held.indexOf(spare);
        if (i < 0) return;
        held.splice(i, 1);
        if (held.length === 0 && this.spares.get(zygote) === held) this.spares.delete(zygote);
        step.release();
      };
      step.proc.exited.then(gone, gone);
    }
  }
}

/** Kills an unused spare; what it held is given back once it is gone. */
function discard(step: PreparedStep): void {
  step.proc.kill();
  const release = (): void => step.release();
  step.proc.exited.then(release, release);
}

function keyOf(shape: StepShape): string {
  return JSON.stringify([shape.cgroup.processes, shape.cgroup.memoryMb, shape.cgroup.cpus, shape.tmpBytes]);
}
