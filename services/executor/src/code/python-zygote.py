"""Pre-forked Python for code steps (started by python-zygote.ts as `python -I python-zygote.py SOCKET`).

A fresh interpreter spends tens of milliseconds starting up and importing `site`; this process pays
that once and forks a child per step. It imports nothing beyond what it needs, runs no threads
(forking is only safe single-threaded), and never sees a step's code, variables or output, so none
of it lingers in this process's memory for a later child to inherit: the child connects to the
service's Unix socket with the single-use token it was forked with, receives its request (code,
environment, cwd and a second token) as one JSON line there, and makes that connection its stdout
and a second one, opened with the second token, its stderr.

Control protocol, JSON lines. stdin: {"id": n, "token": t}. stdout: {"ready": true} once, then
{"id": n, "pid": p} after each fork and {"id": n, "code": c, "signal": s, "connected": bool} once
the child is reaped ("connected": whether its stdout and stderr were connected), or
{"id": n, "error": message} when it could not be forked.
"""

import atexit
import builtins
import gc
import json
import os
import select
import signal
import socket
import sys
import types

# Exit status of a child that failed before running any user code (EX_SOFTWARE).
SETUP_FAILED = 70


def main():
    socket_path = sys.argv[1]
    children = {}  # pidfd -> (id, pid, status read end)
    poller = select.poll()
    poller.register(0, select.POLLIN)
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
                        return  # the service is gone
                    *lines, pending = (pending + data).split(b"\n")
                    for line in lines:
                        request = json.loads(line)
                        started = start(request["id"], request["token"], socket_path)
                        if started is not None:
                            pidfd, child_info = started
                            children[pidfd] = child_info
                            poller.register(pidfd, select.POLLIN)
                else:
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
    # before the service learns the pid and may kill it.
    try:
        os.setpgid(pid, pid)
    except OSError:
        pass  # the child got there first, or is already gone
    send({"id": run_id, "pid": pid})
    # A pidfd turns readable when the child exits: no SIGCHLD handler to race with forks.
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


def child(token, status_w, socket_path):
    """Becomes the step's process. Never returns, whatever happens: unwinding into main() would
    run the zygote's cleanup, which kills every other step's process group."""
    status = SETUP_FAILED
    try:
        request = setup(token, status_w, socket_path)
        status = 1
        status = run(request["code"])
    except BaseException as e:
        if status == SETUP_FAILED:
            # To the step's stderr once connected, else to the zygote's, which the service keeps.
            os.write(2, f"python step setup failed: {e!r}\n".encode())
    finally:
        os._exit(status)


def setup(token, status_w, socket_path):
    os.setpgid(0, 0)
    stdout = connect(socket_path, token)
    request = json.loads(read_line(stdout))
    stderr = connect(socket_path, request["stderr"])
    stdin = os.open(os.devnull, os.O_RDONLY)
    os.dup2(stdin, 0)
    os.dup2(stdout.fileno(), 1)
    os.dup2(stderr.fileno(), 2)
    os.write(status_w, b"1")
    # Drops every other descriptor: the sockets' originals, the zygote's pidfds and status pipes.
    os.closerange(3, os.sysconf("SC_OPEN_MAX"))
    stdout.detach()
    stderr.detach()
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    return request


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
            raise EOFError("the service closed the connection before sending the request")
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
