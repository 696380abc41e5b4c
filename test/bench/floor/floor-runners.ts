import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import type { FloorStepAnswer, FloorStepRequest } from "./floor-runner";

const RUNNER = new URL("./floor-runner.ts", import.meta.url).pathname;

/** One floor runner process, with the runs it has in flight. */
class FloorRunner {
  readonly proc: ChildProcess;
  private readonly waiting = new Map<number, (a: FloorStepAnswer) => void>();

  constructor() {
    this.proc = spawn(process.execPath, ["--import", "tsx", "--no-node-snapshot", RUNNER], {
      stdio: ["pipe", "pipe", "inherit"],
    });
    createInterface({ input: this.proc.stdout! }).on("line", (line) => {
      const answer = JSON.parse(line) as FloorStepAnswer;
      this.waiting.get(answer.id)?.(answer);
      this.waiting.delete(answer.id);
    });
  }

  get busy(): number {
    return this.waiting.size;
  }

  run(req: FloorStepRequest): Promise<FloorStepAnswer> {
    return new Promise((resolve) => {
      this.waiting.set(req.id, resolve);
      this.proc.stdin!.write(`${JSON.stringify(req)}\n`);
    });
  }
}

/** The floor's runners (two, as the service forks), each step going to the less busy one. */
export class FloorRunners {
  private readonly runners = [new FloorRunner(), new FloorRunner()];
  private next = 0;

  async run(key: string, code: string, input: unknown): Promise<unknown> {
    const [a, b] = this.runners as [FloorRunner, FloorRunner];
    const answer = await (a.busy <= b.busy ? a : b).run({ id: ++this.next, key, code, input });
    if (!answer.ok) throw new Error(answer.error);
    return answer.output;
  }

  close(): void {
    for (const r of this.runners) r.proc.kill("SIGKILL");
  }
}
