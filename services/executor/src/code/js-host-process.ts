/**
 * A runner's JavaScript host: forked by its sandbox runner under an unprivileged uid of the
 * runner's block (see js-host.ts), in the runner's cgroups, serving JavaScript and TypeScript
 * steps on its fd 3 (a socket pair) until the runner closes it or dies. An exploit of the
 * isolates finds a process that owns nothing and can signal none of the runner's.
 */
import { Socket } from "node:net";
import { JS_POOL } from "./js-bounds";
import { JsSteps } from "./js-steps";
import { serveConnection, type Served } from "./sandbox-server";
import { refusedIsolation } from "./types";

const steps = new JsSteps();
const served: Served = {
  isolation: refusedIsolation("a JavaScript host runs JavaScript and TypeScript only"),
  jsPool: JS_POOL,
  run: (req, limits, signal, onLog) => steps.run(req, limits, signal, onLog),
};
const channel = new Socket({ fd: 3, readable: true, writable: true });
serveConnection(channel, served);
// After the connection's own handler, which aborts the runs: exit waits for an isolate still running.
channel.on("close", () => {
  steps.close();
  process.exit(0);
});
