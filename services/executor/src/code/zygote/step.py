"""A step's main process, forked from the zygote into the step's fresh PID, IPC, UTS and mount
namespaces (as PID 1: when it ends, the kernel ends everything it started) and its network
namespace, usually before its step comes (see step-spares.ts).

Forked with its setup (its run directory, cgroups, uid) and single-use tokens, it connects to the
runner's socket with them (its stdout, stderr and, for an interactive process such as an MCP
server, stdin) and is confined (confine.py): all of it before its step is known. Then it waits on
its stdout connection for its step (the code or argv, the environment, the rlimits), and becomes
it: Python code runs in this very process, any other language is exec'd. Nothing of the zygote's
descriptors is kept.
"""

import _signal
import atexit
import builtins
import json
import os
import signal
import socket
import sys
import types

import confine
import linux

# Exit status of a step that failed before running any user code (EX_SOFTWARE).
SETUP_FAILED = 70


def run_step(token, setup, status_w, stdio_path, seccomp_filter):
    """Never returns: unwinding into the zygote's loop would run its cleanup, which kills every
    other step."""
    status = SETUP_FAILED
    try:
        linux.prctl(linux.PR_SET_PDEATHSIG, signal.SIGKILL, what="parent death signal")
        # A session of its own: no controlling terminal, so none of the operator's to read or type into.
        os.setsid()
        signal.set_wakeup_fd(-1)
        # _signal's, not signal.signal, whose conversions to and from enums touched about thirty
        # pages more that this fork shares with the zygote, each a copy-on-write fault (counted on
        # 2026-12-06).
        _signal.signal(_signal.SIGCHLD, _signal.SIG_DFL)
        # Connecting waits for no answer: the runner reads the token whenever it gets to it.
        stdout = connect(stdio_path, token)
        stderr = connect(stdio_path, setup["stderr"])
        stdin = connect(stdio_path, setup["stdin"]) if setup.get("stdin") else None
        os.write(status_w, b"1")
        os.dup2(stdin.fileno() if stdin else os.open(os.devnull, os.O_RDONLY), 0)
        os.dup2(stdout.fileno(), 1)
        os.dup2(stderr.fileno(), 2)
        # Drops every other descriptor: the sockets' originals, the zygote's control pipes, pidfds, pipes.
        os.closerange(3, os.sysconf("SC_OPEN_MAX"))
        for sock in (stdin, stdout, stderr):
            if sock is not None:
                sock.detach()
        confine.confine(setup, seccomp_filter)
        rehearse()
        # All of the above is done before the step is known (usually while the step before runs): what
        # follows, under the confinement already, is the step's own.
        request = json.loads(read_line(1))
        confine.set_limits(request["limits"])
        if "argv" in request:
            execute(request["argv"], request["env"])
        set_environment(request["env"])
        status = 1
        status = run(request["code"])
    except BaseException as e:
        if status == SETUP_FAILED:
            # To the step's stderr once connected, else to the zygote's, which the runner keeps.
            os.write(2, f"step setup failed: {e!r}\n".encode())
    finally:
        os._exit(status)


def rehearse():
    """Takes, on throwaway values, the paths a step's own part takes: decoding its request, setting its
    environment, compiling and running code in a fresh __main__. The pages of the zygote's memory they
    write are copied (one copy-on-write fault each) now, while this process waits for its step, not on
    the step's path, which then takes about 90 such faults instead of about 160 (counted on 2026-12-06,
    a `print(1)` step; the rehearsal itself about 55)."""
    json.loads('{"code": "", "env": {"A": "b"}, "limits": {"n": 1}, "argv": [null, true]}')
    os.environ["WF_REHEARSAL"] = ""
    del os.environ["WF_REHEARSAL"]
    module = types.ModuleType("__main__")
    module.__builtins__ = builtins
    exec(compile("pass", "<string>", "exec"), module.__dict__)


def set_environment(env):
    """Python code sees `env` in os.environ and its children inherit it. The zygote emptied its own
    environment before forking: only a step's process that finds it set clears it. Item by item:
    MutableMapping.update's check that `env` is a Mapping (an abstract class) touched about thirty
    pages more, each a copy-on-write fault."""
    if os.environ:
        os.environ.clear()
    for name, value in env.items():
        os.environ[name] = value


def connect(path, token):
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(path)
    sock.sendall(token.encode() + b"\n")
    return sock


def read_line(fd):
    """The one line the runner sends: the step."""
    data = bytearray()
    while not data.endswith(b"\n"):
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            raise EOFError("the runner closed the connection before sending the step")
        data += chunk
    return data


# The kernel's bound on one string of exec's environment, "NAME=value" and its NUL (MAX_ARG_STRLEN).
MAX_ENV_STRING = 128 * 1024
# What the environment may take in all before its largest values go to files: exec takes argv and the environment
# together up to a quarter of the stack's rlimit (2 MiB at the usual 8 MiB), and a step's code is its argv.
MAX_ENV_TOTAL = 1024 * 1024


def spilled(env):
    """`env` with each value exec could not pass (too long alone, or the largest while all together are too long)
    written to a file in the step's home instead: `<NAME>_FILE` names it, and `<NAME>` is unset. A step's input or a
    variable may be far longer than 128 KiB; Python steps, which run in this process, see every value whole."""
    sizes = {name: len(name) + len(value.encode()) + 2 for name, value in env.items()}
    total = sum(sizes.values())
    out = dict(env)
    for name in sorted(sizes, key=sizes.get, reverse=True):
        if sizes[name] <= MAX_ENV_STRING and total <= MAX_ENV_TOTAL:
            break
        directory = os.path.join(env["HOME"], ".wf-env")
        os.makedirs(directory, mode=0o700, exist_ok=True)
        path = os.path.join(directory, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(out.pop(name))
        out[name + "_FILE"] = path
        total -= sizes[name]
    return out


def execute(argv, env):
    """Replaces this process with argv[0] (found on the step's PATH); returns only to fail."""
    # Python ignores these, and ignored signals stay ignored across exec: a program expects the default.
    for sig in (_signal.SIGPIPE, _signal.SIGXFSZ):
        _signal.signal(sig, _signal.SIG_DFL)  # as in run_step
    try:
        os.execvpe(argv[0], argv, spilled(env))
    except FileNotFoundError:
        os.write(2, f"{argv[0]}: command not found\n".encode())
        os._exit(127)
    except OSError as e:
        hint = " (the code exceeds the kernel's 128 KiB per argument)" if e.errno == 7 else ""
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
