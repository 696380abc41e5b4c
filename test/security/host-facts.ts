import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { networkInterfaces } from "node:os";
import { join } from "node:path";
import { descendants, RUNNER_PROCESS } from "@wf/executor/testing";

/** What the host knows of the running service, and a step should never learn or reach. */
export interface HostFacts {
  dataDir: string;
  repo: string;
  servicePid: number;
  natsPid: number;
  runnerPids: number[];
  natsPort: number;
  edge: string;
  edgePort: number;
  /** A non-loopback IPv4 address of this host, when it has one. */
  ownAddress: string | undefined;
  /** What the executor says steps may read (its start-up log). */
  readable: string[];
  /** The values in keys.json and nats-credentials.json: none may ever reach a step. */
  storedSecrets: string[];
}

export async function hostFacts(dataDir: string, servicePid: number, serviceOutput: string): Promise<HostFacts> {
  const natsUrl = new URL((await readFile(join(dataDir, "nats-url"), "utf8")).trim());
  const edge = /\[wf\] ready: edge on (http:\/\/\S+?),/.exec(serviceOutput)?.[1];
  if (!edge) throw new Error(`the service did not say where its edge listens:\n${serviceOutput}`);
  const [natsPid] = descendants(servicePid, /nats-server/);
  if (natsPid === undefined) throw new Error("the service runs no nats-server child");
  const sandboxLine = serviceOutput.split(/\r?\n/).find((l) => l.includes('"msg":"code sandbox:'));
  if (!sandboxLine) throw new Error(`the executor did not describe its sandbox:\n${serviceOutput}`);
  const stored = [
    JSON.parse(await readFile(join(dataDir, "keys.json"), "utf8")) as unknown,
    JSON.parse(await readFile(join(dataDir, "nats-credentials.json"), "utf8")) as unknown,
  ];
  return {
    dataDir,
    repo: process.cwd(),
    servicePid,
    natsPid,
    runnerPids: descendants(servicePid, RUNNER_PROCESS),
    natsPort: Number(natsUrl.port),
    edge,
    edgePort: Number(new URL(edge).port),
    ownAddress: Object.values(networkInterfaces())
      .flat()
      .find((a) => a && !a.internal && a.family === "IPv4")?.address,
    readable: (JSON.parse(sandboxLine) as { readable: string[] }).readable,
    storedSecrets: stored.flatMap(longStrings),
  };
}

/** Every string of 16 characters or more in a JSON value: the keys and passwords, not the labels. */
function longStrings(value: unknown): string[] {
  if (typeof value === "string") return value.length >= 16 ? [value] : [];
  if (value && typeof value === "object") return Object.values(value).flatMap(longStrings);
  return [];
}

/** The real uid of a host process. */
export function hostUid(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, "utf8")
    .split("\n")
    .find((l) => l.startsWith("Uid:"));
  return Number(line?.split(/\s+/)[1]);
}
