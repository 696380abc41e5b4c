import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { descendsFrom, procCmdline, procStatAt, procTable } from "./proc-table";
import { waitFor } from "./wait-for";

describe.runIf(process.platform === "linux")("/proc table", () => {
  it("finds a child and a grandchild as descendants, with their parents and command lines", async () => {
    // sh starts sleep as its child: a grandchild of this process.
    const child = spawn("sh", ["-c", "sleep 30 & wait"], { stdio: "ignore" });
    let grandchild: number | undefined;
    try {
      // Until it has exec'd, sh's forked child still shows sh's command line.
      const sleeping = (pid: number): boolean => procCmdline(pid) === "sleep\u000030\u0000";
      grandchild = await waitFor(
        () => [...procTable()].find(([pid, stat]) => stat.ppid === child.pid && sleeping(pid))?.[0],
        { what: "sh to start sleep" },
      );
      const table = procTable();
      expect(table.get(process.pid)?.ppid).toBe(process.ppid);
      expect(table.get(child.pid!)?.ppid).toBe(process.pid);
      expect(descendsFrom(child.pid!, process.pid, table)).toBe(true);
      expect(descendsFrom(grandchild, process.pid, table)).toBe(true);
      expect(descendsFrom(process.pid, process.pid, table)).toBe(false);
      expect(descendsFrom(process.pid, child.pid!, table)).toBe(false);
      expect(procCmdline(grandchild)).toBe("sleep\u000030\u0000");
      expect(procStatAt(`/proc/${child.pid}/stat`)).toMatchObject({
        name: "sh",
        state: expect.stringMatching(/^[RS]$/),
      });
    } finally {
      child.kill("SIGKILL");
      if (grandchild !== undefined) process.kill(grandchild, "SIGKILL");
    }
  });

  it("says null for a process that is gone", () => {
    expect(procStatAt("/proc/0/stat")).toBeNull();
    expect(procCmdline(0)).toBeNull();
  });
});
