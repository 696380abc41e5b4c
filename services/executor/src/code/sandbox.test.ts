import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runnerBundles, sleepers, sleepMarker, waitFor } from "@wf/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CodeRunner } from "./index";
import { createCodeRunner } from "./index";
import { descendants, RUNNER_PROCESS, runDirs, step } from "./testing/processes";

/** Each probe prints one JSON line; the step's output is what the probe saw. */
async function probe(
  runner: CodeRunner,
  code: string,
  language: "python" | "bash" = "python",
): Promise<Record<string, unknown>> {
  const result = await runner.run(step(language, code));
  if (!result.ok) throw new Error(result.error);
  return result.output as Record<string, unknown>;
}

describe("the sandbox of code steps: what a step can see and do", () => {
  let runner: CodeRunner;
  let scratch: string;
  beforeAll(async () => {
    process.env.WF_TEST_SECRET = "do-not-leak";
    scratch = await mkdtemp(join(tmpdir(), "wf-sandbox-test-"));
    await writeFile(join(scratch, "host-file"), "host secret");
    runner = await createCodeRunner({ pool: 1, tmpRoot: scratch, ...runnerBundles() });
  });
  afterAll(async () => {
    await runner.close();
    await rm(scratch, { recursive: true, force: true });
    delete process.env.WF_TEST_SECRET;
  });

  it("reports the isolation in force: the sandbox's own file system, uids, seccomp, the limits", () => {
    const isolation = runner.isolation()!;
    expect(isolation).toMatchObject({ network: "proxy", filesystem: "sandbox", uids: "per step", seccomp: true });
    expect(isolation.readable).toContain("/usr");
    expect(isolation.readable).not.toContain("/");
    expect(isolation.limits).toEqual(
      expect.arrayContaining([
        "memory per step (memory cgroup)",
        "processes per step (pids cgroup)",
        "CPU per step (cpu cgroup)",
        expect.stringMatching(
          /^JavaScript: in a host process of its own \(uid \d+, the runner's cgroups\), heap and array buffers per step \(isolate\), no WebAssembly, .* \d+ isolates at once per runner, of which an owner holds \d+ \(free\)/,
        ),
      ]),
    );
  });

  it("sees only what interpreters need: not the host's /tmp, /root, /home, /var, /run, the repository, nor the service's files", async () => {
    const paths = {
      scratch: join(scratch, "host-file"),
      repo: join(process.cwd(), "package.json"),
      cwd: process.cwd(),
      shadow: "/etc/shadow",
      home: "/home",
      var: "/var",
      srv: "/srv",
      sys: "/sys",
    };
    const code = `
import json, os
paths = ${JSON.stringify(paths)}
seen = {k: os.path.exists(p) for k, p in paths.items()}
seen["root"] = sorted(os.listdir("/root")) if os.path.isdir("/root") else None
seen["run"] = sorted(os.listdir("/run"))
seen["tmp"] = sorted(os.listdir("/tmp"))
seen["top"] = sorted(os.listdir("/"))
print(json.dumps(seen))`;
    const seen = await probe(runner, code);
    expect(seen).toMatchObject({
      scratch: false,
      repo: false,
      cwd: false,
      shadow: false,
      home: false,
      var: false,
      srv: false,
      sys: false,
      tmp: [],
    });
    // /run/wf held the zygote's files: gone from the step's view, its mount point left empty.
    expect(seen.run).toEqual(["wf"]);
    // The interpreter's own prefix is all there is of /root, when Python lives there (pyenv).
    for (const entry of (seen.root as string[] | null) ?? []) expect(entry).toBe(".pyenv");
    expect(seen.top).not.toContain("home");
  });

  it("writes only to its /step and its private /tmp, not to the host's files", async () => {
    const code = `for f in /etc/x /usr/x /x /step/x /tmp/x /dev/shm/x; do touch "$f" 2>/dev/null && echo "wrote $f" || echo "refused $f"; done`;
    const result = await runner.run(step("bash", code));
    expect(result.ok && String(result.output).split("\n")).toEqual([
      "refused /etc/x",
      "refused /usr/x",
      "refused /x",
      "wrote /step/x",
      "wrote /tmp/x",
      "wrote /dev/shm/x",
    ]);
    expect(existsSync("/etc/x") || existsSync("/usr/x")).toBe(false);
    // A later step does not find the first one's /tmp.
    expect(await runner.run(step("bash", "ls -A /tmp /dev/shm | tr -d '\\n'"))).toMatchObject({
      ok: true,
      output: "/dev/shm:/tmp:",
    });
  });

  it("sees no process but its own, and no environment but its own", async () => {
    const [runnerPid] = descendants(process.pid, RUNNER_PROCESS);
    const code = `
import json, os, subprocess
child = subprocess.Popen(["sleep", "5"])
pids = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
leaked = [p for p in pids if b"WF_TEST_SECRET" in open(f"/proc/{p}/environ", "rb").read()]
child.kill()
print(json.dumps({"pids": pids, "me": os.getpid(), "parent": os.getppid(), "leaked": leaked, "env": sorted(os.environ)}))`;
    const seen = await probe(runner, code);
    expect(seen).toMatchObject({ pids: [1, expect.any(Number)], me: 1, parent: 0, leaked: [] });
    expect(seen.pids).not.toContain(runnerPid);
    expect(seen.env).toEqual(["HOME", "LANG", "PATH", "WF_ARTIFACTS_DIR", "WF_INPUT"]);
  });

  it("finds nothing the steps before it left: no file, shared memory segment or process", async () => {
    // Each step leaves something in its mount and IPC namespaces and a process in its PID
    // namespace: namespaces made for one step alone (ahead of it) and never given to another.
    const code = `
import ctypes, json, os, subprocess
seen = {
    "files": os.listdir("/tmp") + os.listdir("/dev/shm"),
    "segments": open("/proc/sysvipc/shm").read().splitlines()[1:],
    "pids": sorted(int(p) for p in os.listdir("/proc") if p.isdigit()),
}
for d in ("/tmp", "/dev/shm"):
    open(f"{d}/left", "w").write("x")
seen["segment"] = ctypes.CDLL(None).shmget(0, 4096, 0o1600)
subprocess.Popen(["sleep", "30"], start_new_session=True)
print(json.dumps(seen))`;
    for (let i = 0; i < 4; i++) {
      const seen = await probe(runner, code);
      expect(seen).toMatchObject({ files: [], segments: [], pids: [1] });
      expect(seen.segment).toBeGreaterThanOrEqual(0);
    }
  });

  it("runs as an unprivileged uid of its own, with no capability, under the seccomp filter", async () => {
    const code = `
import ctypes, errno, json, os
libc = ctypes.CDLL(None, use_errno=True)
def call(name, *args):
    r = getattr(libc, name)(*args)
    return "ok" if r >= 0 else errno.errorcode[ctypes.get_errno()]
status = {l.split(":")[0]: l.split(":")[1].strip() for l in open("/proc/self/status") if ":" in l}
print(json.dumps({
    "uid": os.getuid(), "gid": os.getgid(), "groups": os.getgroups(),
    "capEff": status["CapEff"], "capBnd": status["CapBnd"], "noNewPrivs": status["NoNewPrivs"], "seccomp": status["Seccomp"],
    "ptrace": call("ptrace", 0, 0, 0, 0),
    "unshareUser": call("unshare", 0x10000000),
    "mount": call("mount", b"none", b"/tmp", b"tmpfs", 0, None),
    "keyctl": call("syscall", 250 if os.uname().machine == "x86_64" else 219, 0, 0, 0, 0),
    "bpf": call("syscall", 321 if os.uname().machine == "x86_64" else 280, 0, 0, 0),
    "setuid0": call("setuid", 0),
    "vsock": call("socket", 40, 1, 0),
    "tiocsti": call("ioctl", 1, 0x5412, ctypes.c_char_p(b"x")),
}))`;
    const seen = await probe(runner, code);
    expect(seen).toMatchObject({
      gid: seen.uid,
      groups: [],
      capEff: "0000000000000000",
      capBnd: "0000000000000000",
      noNewPrivs: "1",
      seccomp: "2",
      ptrace: "EPERM",
      unshareUser: "EPERM",
      mount: "EPERM",
      keyctl: "EPERM",
      bpf: "EPERM",
      setuid0: "EPERM",
      vsock: "EPERM",
      tiocsti: "EPERM",
    });
    expect(seen.uid).toBeGreaterThanOrEqual(1000);
  });

  it("gives steps running at once uids of their own, and none reaches the other's files", async () => {
    const marker = sleepMarker();
    const lines: string[] = [];
    const holder = runner.run(
      step("bash", `echo secret > /step/mine; echo "uid $(id -u)"; sleep ${marker}`, {
        owner: "tenant-a",
        timeoutMs: 60_000,
      }),
      undefined,
      (line) => lines.push(line),
    );
    await waitFor(() => lines.some((l) => l.startsWith("uid")) && sleepers(marker).length === 1, {
      what: "the first step to run",
    });
    const holderDir = runDirs().find((dir) => existsSync(join(dir, "mine")));
    expect(holderDir, "the holder's directory, seen from the host").toBeDefined();
    const code = `
import json, os
print(json.dumps({"uid": os.getuid(), "exists": os.path.exists(${JSON.stringify(holderDir)}), "runs": os.path.exists("/run/wf/runs"),
  "procs": sorted(int(p) for p in os.listdir("/proc") if p.isdigit())}))`;
    // Another step of the same owner (the same zygote), and one of another owner.
    for (const owner of ["tenant-a", "tenant-b"]) {
      const result = await runner.run(step("python", code, { owner }));
      expect(result).toMatchObject({ ok: true, output: { exists: false, runs: false, procs: [1] } });
      expect(`uid ${String((result.ok && (result.output as { uid: number }).uid) ?? "")}`).not.toBe(
        lines.find((l) => l.startsWith("uid")),
      );
    }
    process.kill(sleepers(marker)[0]!, "SIGKILL");
    expect(await holder).toMatchObject({ ok: false });
  });

  it("keeps what it writes in /step in memory, counted against its memory limit, not on the host's disk", async () => {
    // 10 MB files (each under the file size limit) until the step's 512 MB of memory are spent.
    const result = await runner.run(
      step(
        "bash",
        'for i in $(seq 1 80); do head -c 10000000 /dev/zero > "/step/f$i" || exit 9; done; echo wrote it all',
      ),
    );
    expect(result).toMatchObject({ ok: false, error: "exceeded the memory limit of 512 MB" });
  });

  it("can signal nothing outside its own processes", async () => {
    // kill(-1) reaches every process the caller may signal but its namespace's init: here, none.
    const result = await runner.run(step("bash", "sleep 5 & kill -9 -1; wait; echo only its own"));
    expect(result).toMatchObject({ ok: true, output: "only its own" });
    expect(descendants(process.pid, RUNNER_PROCESS)).toHaveLength(1);
    expect(await runner.run(step("bash", "echo still serving"))).toMatchObject({ ok: true, output: "still serving" });
  });

  it("reaches no host socket: not the databases', not the sandbox runner's", async () => {
    const code = `
import json, socket
tried = {}
for path in ["/run/mysqld/mysqld.sock", "/var/run/postgresql/.s.PGSQL.5432", "/run/wf/ctl/stdio.sock"]:
    s = socket.socket(socket.AF_UNIX)
    try:
        s.connect(path)
        tried[path] = "connected"
    except OSError as e:
        tried[path] = type(e).__name__
print(json.dumps(tried))`;
    expect(await probe(runner, code)).toEqual({
      "/run/mysqld/mysqld.sock": "FileNotFoundError",
      "/var/run/postgresql/.s.PGSQL.5432": "FileNotFoundError",
      "/run/wf/ctl/stdio.sock": "FileNotFoundError",
    });
  });
});
