import { execFileSync } from "node:child_process";
import type { NatsServerHandle } from "@wf/testing";

/**
 * Bytes a stream's message blocks take in a test server's store (its `msgs/` directory), as the disk holds them:
 * compressed blocks at their compressed size.
 */
export function streamBytesOnDisk(server: NatsServerHandle, stream: string): number {
  const dir = execFileSync("find", [server.storeDir, "-type", "d", "-name", stream]).toString().trim();
  return Number(
    execFileSync("du", ["-sb", `${dir}/msgs`])
      .toString()
      .split("\t")[0],
  );
}
