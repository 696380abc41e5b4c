"""Pre-forked Python that starts the process of every non-JavaScript step and of every stdio MCP
server (started by zygote.ts as `python -I -B main.py CTL_DIR MODE`; MODE `confined` in the
sandbox that enter.py built, `host` where the operator opted out of it).

A fresh interpreter spends tens of milliseconds starting up and importing `site`, and a fork costs
a few more: this process pays the first once and forks each step's process directly into the
step's own PID, IPC, UTS and mount namespaces (and network, for a step with network; the others
share one with only loopback), which it makes just before (step.py does the rest). It imports everything its children use, runs no threads (forking is only safe
single-threaded), is not dumpable (no step can attach to it or read its memory), and never sees
a step's code, variables or output, so none of it lingers in this process's memory for a later
child to inherit: the child is forked with its setup (its uid, run directory, cgroups; see
confine.py) and a single-use token, sets itself up, connects to the runner's Unix socket
(CTL_DIR/stdio.sock) with the token and receives its step there: the runner has it forked before
its step comes (step-spares.ts).

Control protocol, JSON lines. stdin:
  {"id": n, "token": t, "setup": {...}, "run": {"name", "uid"}?, "network": {"port", "socket"}?}
                                                        fork a step's process, in the sandbox first making its
                                                        directory (runs/<name>, the uid's), and a
                                                        relay in its network namespace for its
                                                        egress proxy
  {"kill": n}                                           kill it (and with it, its PID namespace)
  {"artifacts": token, "runDir", "uid", "limits", "confined"}  read a finished step's artifacts
stdout: {"ready": true, "seccomp": bool} once, then {"id": n, "pid": p} after each fork and
{"id": n, "code": c, "signal": s, "connected": bool} once the step's process is reaped
("connected": whether its stdout and stderr were connected), or {"id": n, "error": message}
when it could not be forked. End of stdin: the runner is gone, and so is every step started here.
"""

import gc
import json
import os
import select
import signal
import sys

# -I leaves the script's directory out of sys.path; the zygote's modules are beside it.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import artifacts  # noqa: E402
import linux  # noqa: E402
import relay  # noqa: E402
import seccomp  # noqa: E402
import step  # noqa: E402

STEP_NAMESPACES = linux.CLONE_NEWIPC | linux.CLONE_NEWUTS
RUNS = "/run/wf/runs"


class Zygote:
    def __init__(self, ctl_dir, confined):
        self.ctl_dir = ctl_dir
        self.stdio_path = os.path.join(ctl_dir, "stdio.sock")
        self.confined = confined
        self.seccomp_filter = linux.Filter(seccomp.program()) if seccomp.supported() else None
        self.children = {}  # pidfd -> (id, pid, status read end, relay's done pipe write end, mount namespace)
        self.helpers = set()  # pids of relays and artifact readers, reaped as they end
        self.poller = select.poll()
        # A step's PID namespace is made for the fork of its process only: the zygote's own
        # is restored for every other child (relays, artifact readers).
        self.own_pid_ns = os.open("/proc/self/ns/pid", os.O_RDONLY | os.O_CLOEXEC) if confined else None
        self.own_mnt_ns = os.open("/proc/self/ns/mnt", os.O_RDONLY | os.O_CLOEXEC) if confined else None
        # Steps without network share one namespace with only loopback (making one costs more
        # than the rest of a step's namespaces together); a step with network gets its own.
        self.no_network = self.own_network_namespace() if confined else None
        if confined:
            # Once here rather than in every step's process, one system call a capability (about 40
            # a step, each a trap to the hypervisor on a PVM guest): what this process forks
            # inherits the empty set. Making a step's namespaces and mounts needs only the
            # capabilities it has, which stay.
            linux.drop_bounding_set()

    def serve(self):
        self.poller.register(0, select.POLLIN)
        linux.prctl(linux.PR_SET_DUMPABLE, 0, what="not dumpable")
        wake_r, wake_w = os.pipe()
        os.set_blocking(wake_w, False)
        signal.signal(signal.SIGCHLD, lambda *_: None)
        signal.set_wakeup_fd(wake_w, warn_on_full_buffer=False)  # a full pipe has woken the loop already
        self.poller.register(wake_r, select.POLLIN)
        pending = b""
        # The interpreter has started: its environment (PATH, LANG, HOME) served that alone. A step
        # sets its own, and finds nothing of this one to clear first.
        os.environ.clear()
        # Objects alive now are never collected in a child: its collections then leave them (and the
        # memory pages they share with this process) untouched, which keeps forks cheap.
        gc.freeze()
        send({"ready": True, "seccomp": self.seccomp_filter is not None})
        try:
            while True:
                for fd, _ in self.poller.poll():
                    if fd == 0:
                        data = os.read(0, 65536)
                        if not data:
                            return  # the runner is gone
                        *lines, pending = (pending + data).split(b"\n")
                        for line in lines:
                            self.handle(json.loads(line))
                    elif fd == wake_r:
                        os.read(wake_r, 4096)
                        self.reap_helpers()
                    elif fd in self.children:
                        self.poller.unregister(fd)
                        self.reap(fd, *self.children.pop(fd))
        finally:
            for _, pid, _, _, _ in self.children.values():
                kill(pid)

    def handle(self, request):
        if "kill" in request:
            for run_id, pid, _, _, _ in self.children.values():
                if run_id == request["kill"]:
                    kill(pid)
        elif "artifacts" in request:
            self.fork_helper(lambda: artifacts.run_reader(self.ctl_dir, request), keep=())
        else:
            self.start(request["id"], request["token"], request["setup"], request.get("run"), request.get("network"))

    def start(self, run_id, token, setup, run, network):
        """Forks the process of one step into namespaces of its own."""
        status_r = status_w = done_w = mnt_ns = None
        listener = None
        try:
            if run is not None:
                make_run_dir(os.path.join(RUNS, run["name"]), run["uid"])
            if self.confined:
                linux.unshare(STEP_NAMESPACES)
                if not network:
                    linux.setns(self.no_network, linux.CLONE_NEWNET)
                else:
                    linux.unshare(linux.CLONE_NEWNET)
                    linux.loopback_up()
                    # Listening before the step exists: a step that connects at once waits in the
                    # backlog until the relay accepts, rather than being refused.
                    listener = relay.listen(network["port"])
                    done_r, done_w = os.pipe()
                    path = os.path.join(self.ctl_dir, network["socket"])
                    self.fork_helper(lambda: relay.run_relay(listener, path, done_r), keep=(done_r, listener.fileno()))
                    os.close(done_r)
                    listener.close()
                    listener = None
                linux.setns(self.own_pid_ns, linux.CLONE_NEWPID)
                linux.unshare(linux.CLONE_NEWPID)
            status_r, status_w = os.pipe()
            pid, mnt_ns = self.fork_with_mounts() if self.confined else (os.fork(), None)
        except OSError as e:
            for fd in (status_r, status_w, done_w):
                if fd is not None:
                    os.close(fd)
            if listener is not None:
                listener.close()
            send({"id": run_id, "error": f"the step's process could not be started: {e}"})
            return
        if pid == 0:
            step.run_step(token, setup, status_w, self.stdio_path, self.seccomp_filter)
        os.close(status_w)
        # By hand, as every message sent at every step: see send_exit.
        os.write(1, b'{"id":%d,"pid":%d}\n' % (run_id, pid))
        # A pidfd turns readable when the process exits: no waitpid(-1) racing with the status of a step.
        pidfd = os.pidfd_open(pid)
        self.children[pidfd] = (run_id, pid, status_r, done_w, mnt_ns)
        self.poller.register(pidfd, select.POLLIN)

    def fork_with_mounts(self):
        """Forks into a mount namespace of the child's own, which this process holds (the descriptor
        returned with the pid) until it has reported the child's end: unmounting the step's file
        systems then comes after its result, not before."""
        linux.unshare(linux.CLONE_NEWNS)
        pid = mnt_ns = None
        try:
            mnt_ns = os.open("/proc/self/ns/mnt", os.O_RDONLY | os.O_CLOEXEC)
            pid = os.fork()
        finally:
            if pid != 0:
                linux.setns(self.own_mnt_ns, linux.CLONE_NEWNS)
                if pid is None and mnt_ns is not None:
                    os.close(mnt_ns)
        return pid, mnt_ns

    def own_network_namespace(self):
        """A new network namespace, with loopback up, that this process enters; its descriptor."""
        linux.unshare(linux.CLONE_NEWNET)
        linux.loopback_up()
        return os.open("/proc/self/ns/net", os.O_RDONLY | os.O_CLOEXEC)

    def fork_helper(self, body, keep):
        """Forks a helper (relay, reader) in the zygote's own PID namespace, holding none of the
        zygote's descriptors but `keep` (another step's relay would never see its end otherwise).
        It never returns into this loop."""
        if self.own_pid_ns is not None:
            linux.setns(self.own_pid_ns, linux.CLONE_NEWPID)
        pid = os.fork()
        if pid == 0:
            null = os.open(os.devnull, os.O_RDWR)
            os.dup2(null, 0)
            os.dup2(null, 1)
            low = 3
            for fd in sorted(keep):
                os.closerange(low, fd)
                low = fd + 1
            os.closerange(low, os.sysconf("SC_OPEN_MAX"))
            body()
        self.helpers.add(pid)

    def reap_helpers(self):
        for pid in list(self.helpers):
            try:
                done, _ = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                done = pid
            if done:
                self.helpers.discard(pid)

    def reap(self, pidfd, run_id, pid, status_r, done_w, mnt_ns):
        os.close(pidfd)
        _, status = os.waitpid(pid, 0)
        if done_w is not None:
            os.close(done_w)  # the relay's cue to end
        # The child closed its write end before running user code or died, so this cannot block.
        connected = os.read(status_r, 1) == b"1"
        os.close(status_r)
        if not self.confined:
            # Without a PID namespace of its own, what the step left running is found by its group.
            kill_group(pid)
        code = os.waitstatus_to_exitcode(status)
        if code >= 0:
            send_exit(run_id, b"%d" % code, b"null", connected)
        else:
            send_exit(run_id, b"null", b'"%s"' % signal.Signals(-code).name.encode(), connected)
        if mnt_ns is not None:
            os.close(mnt_ns)  # after the report: see fork_with_mounts


def make_run_dir(path, uid):
    """The step's directory and its artifacts directory, its uid's alone (the runs directory is a
    tmpfs of the zygote's, which the runner cannot write: its uid is not one of the sandbox's)."""
    os.mkdir(path, 0o700)
    os.mkdir(os.path.join(path, "artifacts"), 0o755)
    for p in (path, os.path.join(path, "artifacts")):
        os.chown(p, uid, uid)


def kill_group(pid):
    try:
        os.killpg(pid, signal.SIGKILL)
    except OSError:
        pass


def kill(pid):
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass


def send(message):
    os.write(1, (json.dumps(message) + "\n").encode())


def send_exit(run_id, code, signal_name, connected):
    """The end of a step, formatted by hand (`code` and `signal_name` as JSON already): after each
    fork every page this process writes faults again (copy-on-write), and json.dumps for this
    message and the pid's touched about twenty more a step (counted on 2026-12-06)."""
    connected = b"true" if connected else b"false"
    os.write(1, b'{"id":%d,"code":%s,"signal":%s,"connected":%s}\n' % (run_id, code, signal_name, connected))


if __name__ == "__main__":
    Zygote(sys.argv[1], sys.argv[2] == "confined").serve()
