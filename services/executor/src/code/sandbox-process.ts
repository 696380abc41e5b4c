/**
 * A local sandbox runner: forked by the service (see local-runner.ts) with an environment that
 * holds no credentials, serving the one connection on its fd 3 (a socket pair) until the service
 * closes it or dies. Arguments: the directory for its run directories, then further paths steps
 * may write to.
 */
import { Socket } from "node:net";
import { Sandbox } from "./sandbox";
import { serveConnection } from "./sandbox-server";

const [tmpRoot, ...writable] = process.argv.slice(2);
if (!tmpRoot) throw new Error("usage: sandbox-process.ts TMP_ROOT [WRITABLE...]");
const sandbox = await Sandbox.start({ tmpRoot, writable });
const channel = new Socket({ fd: 3, readable: true, writable: true });
channel.on("close", () => {
  void sandbox.close().finally(() => process.exit(0));
});
serveConnection(channel, sandbox);
