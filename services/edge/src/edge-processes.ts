import cluster from "node:cluster";

/**
 * Runs `count` edge processes on the edge's one port and only supervises them (node cluster:
 * this process accepts each connection and hands it to a worker, which serves every request on
 * it). SIGINT and SIGTERM are passed on and waited for; a worker that dies otherwise stops the
 * others and this process with its exit code, so that whatever restarts the service restarts it
 * whole. The workers share everything through NATS, as separate edge replicas do.
 */
export function superviseEdgeProcesses(count: number): void {
  let stopping = false;
  const stopAll = (signal: NodeJS.Signals) => {
    stopping = true;
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill(signal);
  };
  cluster.on("exit", (worker, code, signal) => {
    if (!stopping) {
      process.stderr.write(
        `[wf edge] edge process ${worker.process.pid} exited (${signal ?? code}): stopping the others\n`,
      );
      process.exitCode = code || 1;
      stopAll("SIGTERM");
    }
    if (Object.keys(cluster.workers ?? {}).length === 0) process.exit();
  });
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => stopAll(signal));
  for (let i = 0; i < count; i++) cluster.fork();
}
