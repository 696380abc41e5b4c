"""What a step's main process does to itself before any user code runs, as the first process of
the step's own PID namespace (its children see it as PID 1): confine() before its step is known,
set_limits() with it. Any failure here fails the step: user code never runs with half a confinement.

The zygote's file system (built by rootfs.py) holds only what interpreters need, read-only, and
/run/wf with the run directories of this zygote's steps. Here, in a mount namespace of its own,
the process gets a /proc showing only its own PID namespace, private /tmp and /dev/shm, its run
directory at /step, and loses /run/wf; then it drops to its own unprivileged uid, without any
capability or a way to gain one, under the seccomp filter.
"""

import os
import resource
import signal

import linux

WORK = "/step"
HIDDEN = "/run/wf"


def confine(setup, seccomp_filter):
    """In the sandbox (`confined`): all of the above but the rlimits. Without it (an operator's
    opt-in where the sandbox cannot start): the cgroups, the step's own uid where this process may
    change uid, and the seccomp filter; the host's file system and network stay in view."""
    # First: from here on everything the step starts is counted, limited and killable. Through
    # descriptors, not open(), whose file objects touched about fifty pages that this fork shares
    # with the zygote, each a copy-on-write fault (counted on 2026-12-06; three here).
    for cgroup in setup.get("cgroups", []):
        fd = os.open(cgroup + "/cgroup.procs", os.O_WRONLY | os.O_CLOEXEC)
        try:
            os.write(fd, b"0")
        finally:
            os.close(fd)
    if setup["confined"]:
        mounts(setup)
        linux.sethostname("wf-step")
    os.chdir(WORK if setup["confined"] else setup["runDir"])
    if own_uid(setup):
        drop_privileges(setup["uid"], setup["gid"], setup["confined"])
    else:
        linux.prctl(linux.PR_SET_NO_NEW_PRIVS, 1, what="no_new_privs")
    if seccomp_filter is not None:
        seccomp_filter.install()


def own_uid(setup):
    """Whether the step runs as a uid of its own: always in the sandbox; without it, where the runner could give it one."""
    return setup["confined"] or setup["uid"] != os.getuid()


def mounts(setup):
    """In the mount namespace the zygote forked this process into, its own."""
    # The cgroup namespace after joining: the step's cgroup is the root of what it sees.
    linux.unshare(linux.CLONE_NEWCGROUP)
    linux.mount(None, "/", None, linux.MS_REC | linux.MS_PRIVATE)
    linux.mount("proc", "/proc", "proc", linux.MS_NOSUID | linux.MS_NODEV | linux.MS_NOEXEC)
    private = linux.MS_NOSUID | linux.MS_NODEV
    linux.mount("tmpfs", "/tmp", "tmpfs", private, f"mode=1777,size={setup['tmpBytes']}")
    linux.mount("tmpfs", "/dev/shm", "tmpfs", private | linux.MS_NOEXEC, f"mode=1777,size={setup['tmpBytes']}")
    linux.mount(setup["runDir"], WORK, None, linux.MS_BIND | linux.MS_REC)
    linux.mount(None, WORK, None, linux.MS_BIND | linux.MS_REMOUNT | private)
    linux.umount2(HIDDEN, linux.MNT_DETACH)


def set_limits(limits):
    """Each limit as asked, but never above the hard limit this process has (it cannot raise one):
    lowering a limit needs no privilege, so this comes after they are dropped."""
    wanted = [
        # SIGXCPU at the soft limit, SIGKILL a second later.
        (resource.RLIMIT_CPU, limits["cpuSeconds"], limits["cpuSeconds"] + 1),
        (resource.RLIMIT_DATA, limits["dataBytes"], limits["dataBytes"]),
        (resource.RLIMIT_NOFILE, limits["openFiles"], limits["openFiles"]),
        (resource.RLIMIT_NPROC, limits["processes"], limits["processes"]),
        (resource.RLIMIT_FSIZE, limits["fileBytes"], limits["fileBytes"]),
        (resource.RLIMIT_CORE, 0, 0),
    ]
    for which, soft, hard in wanted:
        _, current_hard = resource.getrlimit(which)
        if current_hard != resource.RLIM_INFINITY:
            hard = min(hard, current_hard)
            soft = min(soft, hard)
        resource.setrlimit(which, (soft, hard))


def drop_privileges(uid, gid, confined):
    """From root of the sandbox's user namespace to `uid`, with no capability left in any set and
    none to be had again: the bounding set emptied (in the sandbox, by the zygote already, for
    every process it forks), no_new_privs (set-uid files and file capabilities do nothing on exec)."""
    if not confined:
        linux.drop_bounding_set()
    linux.prctl(linux.PR_CAP_AMBIENT, linux.PR_CAP_AMBIENT_CLEAR_ALL, what="clear ambient capabilities")
    os.setgroups([])
    os.setresgid(gid, gid, gid)
    # Leaving uid 0 for another clears the permitted and effective sets.
    os.setresuid(uid, uid, uid)
    linux.prctl(linux.PR_SET_NO_NEW_PRIVS, 1, what="no_new_privs")
    # A fork of the zygote is not dumpable, which would leave even its own /proc/self (fd,
    # environ) unreadable to a Python step. Nothing of the zygote's or of another step is in
    # its memory, and no other process may ptrace it (the seccomp filter).
    linux.prctl(linux.PR_SET_DUMPABLE, 1, what="dumpable")
    # Cleared by the change of uid; set again so that the step dies with the zygote.
    linux.prctl(linux.PR_SET_PDEATHSIG, signal.SIGKILL, what="parent death signal")
