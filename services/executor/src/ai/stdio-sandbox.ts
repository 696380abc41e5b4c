import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bwrapCommand, commandWorks } from "../code/isolation";

/** How to start one stdio MCP server, and what to clean up once it has ended. */
export interface StdioLaunch {
  command: string;
  args: string[];
  /** Called after the server's process has ended (or failed to start). */
  release(): Promise<void>;
}

export interface StdioLauncher {
  /** False: bubblewrap does not work here, and servers run as plain child processes. */
  readonly sandboxed: boolean;
  launch(argv: string[]): Promise<StdioLaunch>;
}

/**
 * A stdio MCP server is a command the workflow's author chose, so it gets the code steps'
 * sandbox minus what would break a server: the root read-only, one private writable directory
 * (its HOME and TMPDIR: `npx -y` and the like need a writable cache), removed after; its own
 * user, IPC and PID namespaces (it cannot see or signal the executor or other servers), no
 * capabilities, and no controlling terminal. The host's network is kept: most servers exist to
 * reach a service. --die-with-parent: a server must not outlive the executor that talks to it.
 * The directory is bound at its own path rather than over /tmp: the service (or the server's
 * own files) may live under /tmp, and hiding it would break them.
 */
function sandboxArgs(privateDir: string): string[] {
  return bwrapCommand(
    ["--bind", privateDir, privateDir],
    ["--unshare-pid", "--die-with-parent", "--new-session", "--setenv", "HOME", privateDir, "--setenv", "TMPDIR", privateDir],
  );
}

const sandboxed: StdioLauncher = {
  sandboxed: true,
  async launch(argv) {
    const privateDir = await mkdtemp(join(tmpdir(), "wf-mcp-"));
    const [command, ...args] = [...sandboxArgs(privateDir), ...argv];
    return { command: command!, args, release: () => rm(privateDir, { recursive: true, force: true }) };
  },
};

const unsandboxed: StdioLauncher = {
  sandboxed: false,
  async launch([command, ...args]) {
    return { command: command!, args, release: async () => undefined };
  },
};

let probed: Promise<StdioLauncher> | undefined;

/** Tried once per process, with the very command line a server would get. */
export function stdioLauncher(): Promise<StdioLauncher> {
  probed ??= (async () => {
    const privateDir = await mkdtemp(join(tmpdir(), "wf-mcp-probe-"));
    try {
      return (await commandWorks([...sandboxArgs(privateDir), "true"])) ? sandboxed : unsandboxed;
    } finally {
      await rm(privateDir, { recursive: true, force: true });
    }
  })();
  return probed;
}
