import type { Server } from "node:net";
import { createServer } from "node:net";

/** Step uids a runner can give at once: its steps never share a uid while they run. */
export const STEP_SLOTS = 1023;
/** In the sandbox's user namespace: 0 is the zygote, steps get FIRST_STEP_UID and up. */
export const FIRST_STEP_UID = 1000;
const BLOCK = 2 + STEP_SLOTS;

/** The host uids of one runner: its zygotes', its JavaScript host's, then one per step slot. */
export interface UidBlock {
  /** The zygote's uid on the host. */
  readonly hostBase: number;
  /** Step slot n's uid on the host is firstStep + n. */
  readonly firstStep: number;
  /** The JavaScript host's uid on the host: in no sandbox's map, owning nothing. */
  readonly jsHost: number;
  /** uid_map (and gid_map) of a zygote's user namespace. */
  readonly idMap: string;
  release(): void;
}

/**
 * Claims a block of the host uid range `first`..`first + count` for this process, so that no
 * two runners on the host give a step the same uid. A claim is an abstract Unix socket bound in
 * the host's network namespace: the kernel gives each name to one process at a time and frees
 * it when that process dies, so a killed runner leaves nothing to clean up. Runners in other
 * network namespaces (containers) do not see these claims: give each such host its own range.
 */
export async function claimUidBlock(first: number, count: number): Promise<UidBlock> {
  const blocks = Math.floor(count / BLOCK);
  if (blocks < 1) throw new Error(`WF_SANDBOX_UIDS holds ${count} uids; a runner needs ${BLOCK}`);
  for (let k = 0; k < blocks; k++) {
    const hostBase = first + k * BLOCK;
    const server = await listen(`\0wf-sandbox-uids:${first}:${k}`);
    if (!server) continue;
    const idMap = `0 ${hostBase} 1\n${FIRST_STEP_UID} ${hostBase + 2} ${STEP_SLOTS}\n`;
    return { hostBase, jsHost: hostBase + 1, firstStep: hostBase + 2, idMap, release: () => void server.close() };
  }
  throw new Error(`all ${blocks} uid blocks of WF_SANDBOX_UIDS are held by other runners on this host`);
}

function listen(name: string): Promise<Server | undefined> {
  return new Promise((resolve) => {
    // Nobody is meant to connect: the name is the claim.
    const server = createServer((socket) => socket.destroy());
    server.once("error", () => resolve(undefined));
    server.listen(name, () => {
      server.unref();
      resolve(server);
    });
  });
}
