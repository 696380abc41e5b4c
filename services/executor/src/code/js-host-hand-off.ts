import type { ChildProcess } from "node:child_process";
import type { Socket } from "node:net";
import type { HandOffChannel } from "./hand-off-protocol";
import { endedBecause, spawnRunner, stderrTail, type RunnerProcess } from "./local-runner";

interface Host {
  gen: number;
  proc: ChildProcess;
  stderrTail: () => string;
  killedBecause?: string;
}

/**
 * A runner's JavaScript host, forked by the runner (its uid and cgroups are the runner's to give)
 * and handed to the executor, which then talks to it directly: a JavaScript step costs one hop,
 * not two (the runner would otherwise read and write every run again). The runner still watches
 * the process: it says why it ended, and forks the next one when the executor asks.
 */
export class JsHostHandOff {
  private current: Host | undefined;
  private gen = 0;
  private closed = false;

  constructor(
    private readonly host: RunnerProcess,
    private readonly channel: HandOffChannel,
  ) {
    channel.onRequest((msg) => {
      if (msg.t === "js-host-wanted") {
        if (this.current === undefined || this.current.gen <= msg.seen) this.offer();
      } else if (this.current?.gen === msg.gen) this.kill(this.current, msg.why);
    });
  }

  /** Forks a host and hands it over; one the executor no longer has (it asked again) is killed. */
  offer(): void {
    if (this.closed) return;
    if (this.current) this.kill(this.current, "its client asked for another");
    const proc = spawnRunner(this.host, false);
    // Not read here: what the host writes first (its "ready") is its client's, left in the socket until it is handed
    // over.
    const socket = (proc.stdio[3] as Socket).pause();
    const host: Host = { gen: ++this.gen, proc, stderrTail: stderrTail(proc) };
    // "exit", then stderr drained: "close" would wait for the socket handed over, closed here without a word.
    proc.on(
      "exit",
      (code, signal) =>
        void drained(proc).then(() => {
          if (this.current === host) this.current = undefined;
          const how = host.killedBecause ?? `exited unexpectedly (${signal ?? `code ${code}`})`;
          this.channel.send({
            t: "js-host-ended",
            gen: host.gen,
            reason: endedBecause(this.host.what, how, host.stderrTail()),
          });
        }),
    );
    proc.on("error", () => proc.kill("SIGKILL"));
    this.current = host;
    // Sent, the socket is closed here: the host's only peer is the executor.
    this.channel.send({ t: "js-host", gen: host.gen }, socket);
  }

  close(): void {
    this.closed = true;
    if (this.current) this.kill(this.current, "was stopped: the code runner was closed");
  }

  private kill(host: Host, why: string): void {
    host.killedBecause ??= why.startsWith("was ") ? why : `was killed: ${why}`;
    host.proc.kill("SIGKILL");
  }
}

/** Resolves once the process's stderr has ended (at most 500 ms after its exit). */
function drained(proc: ChildProcess): Promise<void> {
  const stderr = proc.stderr;
  if (!stderr || stderr.readableEnded || stderr.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, 500);
    stderr.once("close", () => {
      clearTimeout(timer);
      resolve();
    });
  });
}
