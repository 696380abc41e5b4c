import { ENTRIES, startServiceProcess, type ServiceProcess } from "../support/processes";

export type Role = "edge" | "executor" | "approvals" | "scheduler";

const ROLES: readonly Role[] = ["edge", "executor", "approvals", "scheduler"];

const READY: Record<Role, string[]> = {
  edge: ["edge listening"],
  executor: ["executor ready"],
  approvals: ["approvals ready"],
  scheduler: ["scheduler ready"],
};

/** One replica of a service: its current process, restarted in place after a kill. */
export interface Member {
  role: Role;
  index: number;
  process: ServiceProcess | null;
  /** The edge's base URL (a restarted edge listens on a new port). */
  base: string | null;
}

/**
 * Replicas of every service as separate processes, as in production, on one NATS cluster.
 * `kill` SIGKILLs a member and `restart` brings it back with the same environment; every kill is
 * timed so that the test can tell which executions a dead executor held.
 */
export class Fleet {
  readonly members: Member[] = [];
  readonly executorKills: number[] = [];
  kills = 0;
  /** Starts that failed (and were tried again): each says why. */
  readonly failedStarts: string[] = [];
  /** What killed processes logged, by member: whose actor an execution's holder was. */
  private readonly pastOutputs: { member: Member; output: string }[] = [];

  private constructor(private readonly env: Record<string, string>) {}

  /** `roles`: the services started, in this order (the first one's first replica alone). */
  static async start(env: Record<string, string>, replicas: number, roles = ROLES): Promise<Fleet> {
    const fleet = new Fleet(env);
    for (const role of roles) {
      for (let i = 0; i < replicas; i++) fleet.members.push({ role, index: i, process: null, base: null });
    }
    // The first one alone: it creates the streams, buckets and keys the others then find.
    await fleet.restart(fleet.members[0]!);
    await Promise.all(fleet.members.slice(1).map((m) => fleet.restart(m)));
    return fleet;
  }

  /** Starts the member again; one that exits while starting is started again, up to three times. */
  async restart(m: Member): Promise<void> {
    let p: ServiceProcess;
    for (let attempt = 1; ; attempt++) {
      try {
        p = await startServiceProcess(ENTRIES[m.role], { ...this.env, LOG_LEVEL: "info" }, READY[m.role], {
          timeoutMs: 60_000,
        });
        break;
      } catch (err) {
        // The end says why it exited.
        this.failedStarts.push(String(err).slice(-2_000));
        if (attempt >= 3) throw err;
      }
    }
    m.process = p;
    if (m.role === "edge") {
      const address = /"msg":"edge listening".*?"address":"(http[^"]+)"/.exec(p.output())?.[1];
      if (!address) throw new Error(`the edge did not say where it listens:\n${p.output()}`);
      m.base = address;
    }
  }

  async kill(m: Member): Promise<void> {
    const p = m.process;
    if (p) this.pastOutputs.push({ member: m, output: p.output() });
    m.process = null;
    m.base = null;
    if (m.role === "executor") this.executorKills.push(Date.now());
    this.kills++;
    await p?.kill();
  }

  /** Which member an executor's actor id belongs to, and whether that process still runs. */
  whereIs(actorId: string): string {
    for (const m of this.members) {
      if (m.role !== "executor") continue;
      if (m.process?.output().includes(actorId)) return `executor${m.index}, running`;
      const killed = this.pastOutputs.find((o) => o.member === m && o.output.includes(actorId));
      if (killed) return `executor${m.index}, killed at ${killed.output.length} chars of output`;
    }
    return "unknown";
  }

  /** Every line any process of the fleet logged that holds `text` (killed ones' too). */
  linesAbout(text: string): string[] {
    const outputs = [
      ...this.pastOutputs.map((o) => o.output),
      ...this.members.flatMap((m) => (m.process ? [m.process.output()] : [])),
    ];
    return outputs.flatMap((o) => o.split("\n").filter((line) => line.includes(text)));
  }

  /** The edges that are up now. */
  edges(): string[] {
    return this.members.filter((m) => m.role === "edge" && m.base !== null).map((m) => m.base!);
  }

  async stop(): Promise<void> {
    await Promise.all(this.members.map((m) => m.process?.kill()));
  }
}
