"""Pre-forked Python that starts the process of every non-JavaScript step (started by zygote.ts
as `python -I zygote.py SOCKET`, inside bubblewrap where the runner has it, so that every process
forked from here inherits the sandbox).

A fresh interpreter spends tens of milliseconds starting up and importing `site`; this process pays
that once and forks a child per step: a Python step runs in that child, any other language is
exec'd by it (Node's spawn would cost more, and could not set the limits in the child). It imports
nothing beyond what it needs, runs no threads (forking is only safe single-threaded), and never
sees a step's code, variables or output, so none of it lingers in this process's memory for a
later child to inherit: the child connects to the runner's Unix socket with the single-use token
it was forked with, receives its request (code or argv, environment, cwd, limits, a cgroup to join
and a second token) as one JSON line there, and makes that connection its stdout and a second
one, opened with the second token, its stderr.

Control protocol, JSON lines. stdin: {"id": n, "token": t}. stdout: {"ready": true} once, then
{"id": n, "pid": p} after each fork and {"id": n, "code": c, "signal": s, "connected": bool} once
the child is reaped ("connected": whether its stdout and stderr were connected), or
{"id": n, "error": message} when it could not be forked. End of stdin: the runner is gone, and
so is every step started here.
"""

import atexit
import builtins
import ctypes
import errno
import gc
import json
import os
import resource
import select
import signal
import socket
import sys
import types

# Exit status of a child that failed before running any user code (EX_SOFTWARE).
SETUP_FAILED = 70
PR_SET_CHILD_SUBREAPER = 36


def main():
    socket_path = sys.argv[1]
    children = {}  # pidfd -> (id, pid, status read end)
    poller = select.poll()
    poller.register(0, select.POLLIN)
    # Orphans of steps (what a step left running, killed when it ends) are reparented here rather
    # than to PID 1, which may never reap them: SIGCHLD wakes the loop to reap them.
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    signal.set_wakeup_fd(wake_w, warn_on_full_buffer=False)  # a full pipe has woken the loop already
    poller.register(wake_r, select.POLLIN)
    pending = b""
    # Objects alive now are never collected in a child: its collections then leave them (and the
    # memory pages they share with this process) untouched, which keeps forks cheap.
    gc.freeze()
    send({"ready": True})
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
                        started = start(request["id"], request["token"], socket_path)
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


def start(run_id, token, socket_path):
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
        child(token, status_w, socket_path)
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


def child(token, status_w, socket_path):
    """Becomes the step's process. Never returns, whatever happens: unwinding into main() would
    run the zygote's cleanup, which kills every other step's process group."""
    status = SETUP_FAILED
    try:
        request = setup(token, status_w, socket_path)
        if "argv" in request:
            execute(request["argv"], request["env"])
        status = 1
        status = run(request["code"])
    except BaseException as e:
        if status == SETUP_FAILED:
            # To the step's stderr once connected, else to the zygote's, which the runner keeps.
            os.write(2, f"step setup failed: {e!r}\n".encode())
    finally:
        os._exit(status)


def setup(token, status_w, socket_path):
    os.setpgid(0, 0)
    signal.set_wakeup_fd(-1)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    stdout = connect(socket_path, token)
    request = json.loads(read_line(stdout))
    stderr = connect(socket_path, request["stderr"])
    stdin = os.open(os.devnull, os.O_RDONLY)
    os.dup2(stdin, 0)
    os.dup2(stdout.fileno(), 1)
    os.dup2(stderr.fileno(), 2)
    os.write(status_w, b"1")
    # Drops every other descriptor: the sockets' originals, the zygote's pidfds, pipes and wake-up pipe.
    os.closerange(3, os.sysconf("SC_OPEN_MAX"))
    stdout.detach()
    stderr.detach()
    if request.get("cgroup"):
        # Before any user code: from here on, every process the step starts is counted and killable.
        with open(os.path.join(request["cgroup"], "cgroup.procs"), "w") as f:
            f.write("0")
    set_limits(request["limits"])
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    return request


def set_limits(limits):
    """Each limit as asked, but never above the hard limit this process has (it cannot raise one)."""
    wanted = [
        # SIGXCPU at the soft limit, SIGKILL a second later.
        (resource.RLIMIT_CPU, limits["cpuSeconds"], limits["cpuSeconds"] + 1),
        (resource.RLIMIT_DATA, limits["dataBytes"], limits["dataBytes"]),
        (resource.RLIMIT_NOFILE, limits["openFiles"], limits["openFiles"]),
        (resource.RLIMIT_NPROC, limits["processes"], limits["processes"]),
        (resource.RLIMIT_FSIZE, limits["fileBytes"], limits["fileBytes"]),
    ]
    for which, soft, hard in wanted:
        _, current_hard = resource.getrlimit(which)
        if current_hard != resource.RLIM_INFINITY:
            hard = min(hard, current_hard)
            soft = min(soft, hard)
        resource.setrlimit(which, (soft, hard))


def execute(argv, env):
    """Replaces this process with argv[0] (found on the step's PATH); returns only to fail."""
    # Python ignores these, and ignored signals stay ignored across exec: a program expects the default.
    for sig in (signal.SIGPIPE, signal.SIGXFSZ):
        signal.signal(sig, signal.SIG_DFL)
    try:
        os.execvpe(argv[0], argv, env)
    except FileNotFoundError:
        os.write(2, f"{argv[0]}: command not found\n".encode())
        os._exit(127)
    except OSError as e:
        hint = " (the code, or a WF_ variable, exceeds the kernel's 128 KiB per argument)" if e.errno == errno.E2BIG else ""
        os.write(2, f"{argv[0]}: {e.strerror}{hint}\n".encode())
        os._exit(126)


def connect(socket_path, token):
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(socket_path)
    sock.sendall(token.encode() + b"\n")
    return sock


def read_line(sock):
    data = bytearray()
    while not data.endswith(b"\n"):
        chunk = sock.recv(1 << 20)
        if not chunk:
            raise EOFError("the runner closed the connection before sending the request")
        data += chunk
    return data


def run(code):
    """Runs code as `python -I -c code` would, returning its exit status.

    sys.stdin, sys.stdout and sys.stderr are the zygote's own objects, created at startup exactly
    as a fresh interpreter would create them and never written to by the zygote, so they are
    empty and now write to the descriptors just connected.
    """
    main_module = types.ModuleType("__main__")
    main_module.__builtins__ = builtins
    sys.modules["__main__"] = main_module
    sys.argv[:] = ["-c"]
    try:
        exec(compile(code, "<string>", "exec"), main_module.__dict__)
        status = 0
    except SystemExit as e:
        status = exit_status(e)
    except BaseException as e:
        # Leave this function's frame out of the traceback, as `python -c` shows none of its own.
        tb = e.__traceback__.tb_next if e.__traceback__ else None
        sys.excepthook(type(e), e.with_traceback(tb), tb)
        status = 1
    return finalize(status)


def exit_status(e):
    if e.code is None:
        return 0
    if isinstance(e.code, int):
        return e.code
    print(e.code, file=sys.stderr)
    return 1


def finalize(status):
    """What interpreter shutdown does before exiting: join non-daemon threads, run atexit, flush."""
    try:
        threading = sys.modules.get("threading")
        if threading is not None:
            threading._shutdown()
        atexit._run_exitfuncs()
    except BaseException:
        pass
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:
            status = status or 120  # as CPython does when flushing stdout fails at exit
    return status


def kill_group(pid):
    try:
        os.killpg(pid, signal.SIGKILL)
    except OSError:
        pass


def send(message):
    os.write(1, (json.dumps(message) + "\n").encode())


if __name__ == "__main__":
    main()
