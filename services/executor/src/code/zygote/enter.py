"""Starts a zygote in its sandbox: run by the runner, as the host's root, as
`python -I -B enter.py PLAN_FILE COMMAND...`, it enters a new user namespace, opens the plan's sources,
builds the zygote's file system from PLAN (rootfs.py) in new mount, PID, network, IPC and UTS
namespaces, and execs COMMAND (the zygote) there as the namespace's uid 0: a uid of the
sandbox's range outside it, never the host's root.

The user namespace must map a range of uids (the zygote's own and one per step that may run at
once), which only a process privileged outside it can write: this process unshares, says
`userns` on stdout, and waits for the runner to write its uid and gid maps and answer `mapped`
on stdin. Nothing more is read or written on them: they are the zygote's control channel.

The zygote is the first process of its PID namespace, forked from here; this process waits for
it and exits as it did. The zygote dies with it (parent death signal), and with the zygote, as
the init of their namespace, every step it started.
"""

import json
import os
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import linux  # noqa: E402
import rootfs  # noqa: E402

SETUP_FAILED = 71


def main():
    with open(sys.argv[1]) as f:
        plan = json.load(f)
    command = sys.argv[2:]
    linux.unshare(linux.CLONE_NEWUSER)
    os.write(1, b"userns\n")
    if read_line(0) != b"mapped\n":
        raise RuntimeError("the runner did not map the user namespace")
    fds = rootfs.open_sources(plan)
    os.setgroups([])
    os.setresgid(0, 0, 0)
    os.setresuid(0, 0, 0)
    linux.unshare(linux.CLONE_NEWPID | linux.CLONE_NEWNET | linux.CLONE_NEWIPC | linux.CLONE_NEWUTS)
    zygote = os.fork()
    if zygote == 0:
        linux.prctl(linux.PR_SET_PDEATHSIG, signal.SIGKILL, what="parent death signal")
        os.setsid()
        rootfs.build(plan, fds, "/tmp")
        os.execv(command[0], command)
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    _, status = os.waitpid(zygote, 0)
    code = os.waitstatus_to_exitcode(status)
    os._exit(code if code >= 0 else 128 - code)


def read_line(fd):
    line = bytearray()
    while not line.endswith(b"\n"):
        byte = os.read(fd, 1)
        if not byte:
            break
        line += byte
    return bytes(line)


if __name__ == "__main__":
    try:
        main()
    except BaseException as e:
        os.write(2, f"the sandbox could not be set up: {e}\n".encode())
        os._exit(SETUP_FAILED)
