/**
 * A local sandbox runner: forked by the service (see local-runner.ts) with an environment that
 * holds no credentials, serving the one connection on its fd 3 (a socket pair) until the service
 * closes it or dies. Arguments: the directory for its zygotes and run directories, its settings
 * (SandboxSettings, JSON), and the Python its client found behind `python3` (JSON, optional: asked
 * here when absent).
 */
import { Socket } from "node:net";
import { createLogger } from "@wf/shared/log";
import { EgressPolicy, EgressProxy } from "../egress/index";
import { hostAddresses } from "../egress/host-addresses";
import type { HandOffChannel, HandOffRequest } from "./hand-off-protocol";
import { PythonSchema } from "./languages";
import { Sandbox } from "./sandbox";
import { serveConnection } from "./sandbox-server";
import { SandboxSettings } from "./sandbox-settings";

const [tmpRoot, settingsJson, pythonJson] = process.argv.slice(2);
if (!tmpRoot || !settingsJson) throw new Error("usage: sandbox-process.ts TMP_ROOT SETTINGS_JSON [PYTHON_JSON]");
const settings = SandboxSettings.parse(JSON.parse(settingsJson));
const python = pythonJson === undefined ? undefined : PythonSchema.parse(JSON.parse(pythonJson));
const policy = new EgressPolicy({ allow: settings.egressAllow, hostAddresses: hostAddresses() });
const egress = new EgressProxy({ policy, log: createLogger("warn", { component: "egress" }) });
// Forked with an IPC channel (its client's fd 4), the runner hands its JavaScript host over there.
const handOff: HandOffChannel | undefined = process.send
  ? {
      send: (msg, handle) => void process.send!(msg, handle, undefined, () => undefined),
      onRequest: (listener) => void process.on("message", (msg: HandOffRequest) => listener(msg)),
    }
  : undefined;
const sandbox = await Sandbox.start({
  tmpRoot,
  ...settings,
  egress,
  ...(handOff ? { handOff } : {}),
  ...(python ? { python } : {}),
});
const channel = new Socket({ fd: 3, readable: true, writable: true });
channel.on("close", () => {
  void Promise.all([sandbox.close(), egress.close()]).finally(() => process.exit(0));
});
serveConnection(channel, sandbox);
