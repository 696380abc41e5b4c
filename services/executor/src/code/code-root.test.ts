import { spawn } from "node:child_process";
import { readFileSync, readlinkSync } from "node:fs";
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeCodeRoot } from "./code-root";

const CODE_ROOT = fileURLToPath(new URL("./code-root.ts", import.meta.url));

/**
 * A separate process makes a root under `parent` and prints it; with `die`, it then SIGKILLs
 * itself, as a crashed executor would, else it stays until `stop()`.
 */
async function rootOfAnotherProcess(parent: string, die: boolean): Promise<{ root: string; stop(): void }> {
  const script = `import { makeCodeRoot } from ${JSON.stringify(CODE_ROOT)};
const root = await makeCodeRoot(${JSON.stringify(parent)}, "wf-code-");
process.stdout.write(root + "\\n", () => ${die ? 'process.kill(process.pid, "SIGKILL")' : "setInterval(() => {}, 1000)"});`;
  const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const exited = new Promise((done) => child.once("exit", done));
  let out = "";
  for await (const chunk of child.stdout) {
    out += String(chunk);
    if (out.endsWith("\n")) break;
  }
  if (die) await exited;
  return { root: out.trim(), stop: () => child.kill("SIGKILL") };
}

describe("code roots (where an executor's code runs keep their directories)", () => {
  let parent: string;
  beforeAll(async () => {
    parent = await mkdtemp(join(tmpdir(), "wf-coderoot-test-"));
  });
  afterAll(async () => {
    await rm(parent, { recursive: true, force: true });
  });

  it("removes the root of a process that was SIGKILLed, with what its runs left in it", async () => {
    const { root: abandoned } = await rootOfAnotherProcess(parent, true);
    expect(abandoned.startsWith(join(parent, "wf-code-"))).toBe(true);
    await mkdir(join(abandoned, "zygote-x", "run-y"), { recursive: true });
    await writeFile(join(abandoned, "zygote-x", "run-y", "user-file"), "data a step wrote");

    const root = await makeCodeRoot(parent, "wf-code-");
    const left = await readdir(parent);
    expect(left).toContain(root.slice(parent.length + 1));
    expect(left).not.toContain(abandoned.slice(parent.length + 1));
    await rm(root, { recursive: true });
  });

  it("leaves alone the root of a live process, of another boot or PID namespace, without an owner, or of another prefix", async () => {
    const live = await rootOfAnotherProcess(parent, false);
    const bootId = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
    const pidNamespace = readlinkSync("/proc/self/ns/pid");
    // A pid no process has: above the kernel's highest.
    const deadPid = Number(readFileSync("/proc/sys/kernel/pid_max", "utf8")) + 1;
    const others = {
      otherBoot: { bootId: "another-boot", pidNamespace, pid: deadPid },
      otherNamespace: { bootId, pidNamespace: "pid:[1]", pid: deadPid },
    };
    const kept = [live.root];
    try {
      for (const [name, owner] of Object.entries(others)) {
        const dir = join(parent, `wf-code-${name}`);
        await mkdir(dir);
        await writeFile(join(dir, ".owner.json"), JSON.stringify(owner));
        kept.push(dir);
      }
      for (const dir of [join(parent, "wf-code-no-owner"), join(parent, "wf-sandbox-dead")]) {
        await mkdir(dir);
        kept.push(dir);
      }
      await writeFile(
        join(parent, "wf-sandbox-dead", ".owner.json"),
        JSON.stringify({ bootId, pidNamespace, pid: deadPid }),
      );

      const root = await makeCodeRoot(parent, "wf-code-");
      expect((await readdir(parent)).sort()).toEqual([...kept, root].map((d) => d.slice(parent.length + 1)).sort());
      await rm(root, { recursive: true });
    } finally {
      live.stop();
      for (const dir of kept) await rm(dir, { recursive: true, force: true });
    }
  });
});
