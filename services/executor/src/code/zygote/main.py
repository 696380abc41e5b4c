"""Pre-forked Python that starts the process of every non-JavaScript step and of every stdio MCP
server (started by zygote.ts inside bubblewrap as `python -I main.py CTL_DIR`, so that every
process forked from here inherits the sandbox's file system; see step.py for the rest of a
step's confinement).

A fresh interpreter spends tens of milliseconds starting up and importing `site`; this process pays
that once and forks a supervisor per step (step.py), which forks the step's process: a Python step
runs in that child, any other language is exec'd by it. It imports nothing beyond what it needs,
runs no threads (forking is only safe single-threaded), is not dumpable (no step can attach to it
or read its memory), and never sees a step's code, variables or output, so none of it lingers in
this process's memory for a later child to inherit: the child connects to the runner's Unix
socket (CTL_DIR/stdio.sock) with the single-use token it was forked with and receives its
request there.

Control protocol, JSON lines. stdin: {"id": n, "token": t} to start a step, {"kill": n, "how":
"stop" | "kill"} to end one (see step.py). stdout: {"ready": true, "seccomp":
bool} once, then {"id": n, "pid": p} after each fork and {"id": n, "code": c, "signal": s,
"connected": bool} once the child is reaped ("connected": whether its stdout and stderr were
connected), or {"id": n, "error": message} when it could not be forked. End of stdin: the runner
is gone, and so is every step started here.
"""

import gc
import json
import os
import select
import signal
import sys

# -I leaves the script's directory out of sys.path; the zygote's modules are beside it.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import linux  # noqa: E402
import seccomp  # noqa: E402
import step  # noqa: E402


def main():
    ctl_dir = sys.argv[1]
    children = {}  # pidfd -> (id, pid, status read end)
    poller = select.poll()
    poller.register(0, select.POLLIN)
    # Orphans of steps (what a step left running, killed when it ends) are reparented here rather
    # than to PID 1, which may never reap them: SIGCHLD wakes the loop to reap them.
    linux.prctl(linux.PR_SET_CHILD_SUBREAPER, 1, what="child subreaper")
    linux.prctl(linux.PR_SET_DUMPABLE, 0, what="not dumpable")
    filter_program = seccomp.program() if seccomp.supported() else None
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    signal.set_wakeup_fd(wake_w, warn_on_full_buffer=False)  # a full pipe has woken the loop already
    poller.register(wake_r, select.POLLIN)
    pending = b""
    # Objects alive now are never collected in a child: its collections then leave them (and the
    # memory pages they share with this process) untouched, which keeps forks cheap.
    gc.freeze()
    send({"ready": True, "seccomp": filter_program is not None})
    try:
        while True:
            for fd, _ in poller.poll():
                if fd == 0:
                    data = os.read(0, 65536)
                    if not data:
                        return  # the runner is gone
                    *lines, pending = (pending + data).split(b"\n")
                    for line in lines:
                        request = json.loads(line)
                        if "kill" in request:
                            stop(children, request["kill"], request.get("how"))
                            continue
                        started = start(request["id"], request["token"], ctl_dir, filter_program)
                        if started is not None:
                            pidfd, child_info = started
                            children[pidfd] = child_info
                            poller.register(pidfd, select.POLLIN)
                elif fd == wake_r:
                    os.read(wake_r, 4096)
                    reap_orphans({pid for _, pid, _ in children.values()})
                elif fd in children:
                    poller.unregister(fd)
                    reap(fd, *children.pop(fd))
    finally:
        for _, pid, _ in children.values():
            kill_group(pid)


def start(run_id, token, ctl_dir, filter_program):
    """Forks the child of one run; returns its pidfd and bookkeeping, or None when fork failed."""
    status_r, status_w = os.pipe()
    try:
        pid = os.fork()
    except OSError as e:
        os.close(status_r)
        os.close(status_w)
        send({"id": run_id, "error": f"fork failed: {e}"})
        return None
    if pid == 0:
        step.supervise(token, status_w, ctl_dir, filter_program)
    os.close(status_w)
    # The child makes itself a group leader too; doing it on both sides means the group exists
    # before the runner learns the pid and may kill it.
    try:
        os.setpgid(pid, pid)
    except OSError:
        pass  # the child got there first, or is already gone
    send({"id": run_id, "pid": pid})
    # A pidfd turns readable when the child exits: no waitpid(-1) racing with the status of a step.
    return os.pidfd_open(pid), (run_id, pid, status_r)


def stop(children, run_id, how):
    """`stop`: the step's processes die and its supervisor reports it; `kill`: the supervisor too."""
    for child_id, pid, _ in children.values():
        if child_id == run_id:
            try:
                os.kill(pid, signal.SIGUSR1 if how == "stop" else signal.SIGKILL)
            except ProcessLookupError:
                pass


def reap(pidfd, run_id, pid, status_r):
    os.close(pidfd)
    _, status = os.waitpid(pid, 0)
    # The child closed its write end before running user code or died, so this cannot block.
    connected = os.read(status_r, 1) == b"1"
    os.close(status_r)
    code = os.waitstatus_to_exitcode(status)
    if code >= 0:
        send({"id": run_id, "code": code, "signal": None, "connected": connected})
    else:
        send({"id": run_id, "code": None, "signal": signal.Signals(-code).name, "connected": connected})


def reap_orphans(steps):
    """Reaps exited children that are not the main process of a step (those are reaped by reap())."""
    while True:
        try:
            info = os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:
            return
        if info is None or info.si_pid in steps:
            return
        os.waitpid(info.si_pid, 0)


def kill_group(pid):
    try:
        os.killpg(pid, signal.SIGKILL)
    except OSError:
        pass


def send(message):
    os.write(1, (json.dumps(message) + "\n").encode())


if __name__ == "__main__":
    main()
