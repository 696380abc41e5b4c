"""One step, forked from the zygote: its supervisor, then, forked from that, its main process.

The supervisor connects to the runner's socket with the single-use token it was forked with and
receives its request there, opens the step's stderr (and, for an interactive process such as
an MCP server, stdin) connections, makes new PID, network, IPC, UTS and cgroup namespaces, and
forks the main process into them (which joins the step's cgroups before anything else). While the step runs it relays the step's proxy connections
(relay.py); when the main process has exited (and with it, as the init of its PID namespace,
everything it started), it reads the artifacts as the step's uid and passes the exit status on as
its own. The step cannot see the supervisor: it is outside the step's PID namespace.

SIGUSR1 to the supervisor kills the step (the runner's timeout or a limit) and still sends its
artifacts; SIGKILL ends both (a cancel). The supervisor is not in the step's cgroups: killing
everything in them ends the step and leaves the supervisor to report it.
"""

import atexit
import builtins
import json
import os
import signal
import socket
import sys
import types

import artifacts
import confine
import linux
import relay

# Exit status of a step that failed before running any user code (EX_SOFTWARE).
SETUP_FAILED = 70
STEP_NAMESPACES = linux.CLONE_NEWPID | linux.CLONE_NEWNET | linux.CLONE_NEWIPC | linux.CLONE_NEWUTS


def supervise(token, status_w, ctl_dir, filter_program):
    """Never returns: unwinding into the zygote's loop would run its cleanup, which kills every
    other step."""
    status = SETUP_FAILED
    try:
        status = _supervise(token, status_w, ctl_dir, filter_program)
    except BaseException as e:
        os.write(2, f"step setup failed: {e!r}\n".encode())
    finally:
        _exit_as(status)


def _supervise(token, status_w, ctl_dir, filter_program):
    os.setpgid(0, 0)
    _drop_inherited(status_w)
    signal.set_wakeup_fd(-1)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    stdio_path = os.path.join(ctl_dir, "stdio.sock")
    stdout = connect(stdio_path, token)
    request = json.loads(read_line(stdout))
    stderr = connect(stdio_path, request["stderr"])
    stdin = connect(stdio_path, request["stdin"]) if request.get("stdin") else None
    os.write(status_w, b"1")
    os.close(status_w)
    os.dup2(stderr.fileno(), 2)  # this process's own complaints go to the step's stderr from here

    if request["confined"]:
        linux.unshare(STEP_NAMESPACES)
        linux.loopback_up()
    network = request.get("network")
    listener = relay.listen(network["port"]) if network else None
    main = 0
    # Before the fork: a stop that comes at once must find the handler, not SIGUSR1's default.
    signal.signal(signal.SIGUSR1, lambda *_: main and _kill(main))
    main = os.fork()
    if main == 0:
        _main_process(request, stdin, stdout, stderr, filter_program)
    for sock in (stdin, stdout, stderr):
        if sock is not None:
            sock.close()
    pidfd = os.pidfd_open(main)
    relay.serve_until(pidfd, listener, os.path.join(ctl_dir, network["socket"]) if network else None)
    _, wait_status = os.waitpid(main, 0)
    if listener is not None:
        listener.close()
    if request.get("artifacts"):
        # Connected first: the socket is for the zygote's uid, the files are read as the step's.
        with connect(stdio_path, request["artifacts"]) as sock:
            if confine.own_uid(request):
                confine.drop_privileges(request["uid"], request["gid"])
            artifacts.send(sock, request["runDir"], request["limits"])
    return wait_status_code(wait_status)


def _drop_inherited(keep):
    """The zygote's descriptors are not the supervisor's: its control pipes (stdin and stdout: a
    stray write there would corrupt the protocol), the other steps' pidfds and pipes."""
    os.closerange(3, keep)
    os.closerange(keep + 1, os.sysconf("SC_OPEN_MAX"))
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.close(null)


def _main_process(request, stdin, stdout, stderr, filter_program):
    """PID 1 of the step's namespace: confined, then the step itself. Never returns."""
    status = SETUP_FAILED
    try:
        linux.prctl(linux.PR_SET_PDEATHSIG, signal.SIGKILL, what="parent death signal")
        signal.signal(signal.SIGUSR1, signal.SIG_DFL)
        os.dup2(stdin.fileno() if stdin else os.open(os.devnull, os.O_RDONLY), 0)
        os.dup2(stdout.fileno(), 1)
        os.dup2(stderr.fileno(), 2)
        # Drops every other descriptor: the sockets' originals, the zygote's pidfds and pipes.
        os.closerange(3, os.sysconf("SC_OPEN_MAX"))
        for sock in (stdin, stdout, stderr):
            if sock is not None:
                sock.detach()
        confine.confine(request, filter_program)
        os.environ.clear()
        os.environ.update(request["env"])
        if "argv" in request:
            execute(request["argv"], request["env"])
        status = 1
        status = run(request["code"])
    except BaseException as e:
        if status == SETUP_FAILED:
            os.write(2, f"step setup failed: {e!r}\n".encode())
    finally:
        os._exit(status)


def _kill(pid):
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def wait_status_code(wait_status):
    """A waitpid status as this process's own exit: the code, or minus the signal."""
    return os.waitstatus_to_exitcode(wait_status)


def _exit_as(code):
    if code >= 0:
        os._exit(code)
    # Dying of the same signal tells the zygote (and the runner) how the step ended.
    sig = -code
    try:
        signal.signal(sig, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, [sig])
        os.kill(os.getpid(), sig)
    except (OSError, ValueError):
        pass
    os._exit(128 + sig)


def connect(path, token):
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(path)
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
        hint = " (the code, or a WF_ variable, exceeds the kernel's 128 KiB per argument)" if e.errno == 7 else ""
        os.write(2, f"{argv[0]}: {e.strerror}{hint}\n".encode())
        os._exit(126)


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
