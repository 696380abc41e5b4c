"""Builds the zygote's file system: a tmpfs root holding only what the runner's plan lists,
read-only binds of what interpreters need, generated /etc files, a few device nodes, /proc, and
/run/wf (the run directories, the control sockets, the zygote's own code), then pivots into it.

Every source is opened while this process still has the host's uid (open_sources, in the new
mount namespace: a bind's source must be a mount of the caller's namespace), and mounted later
through its /proc/self/fd link: as the sandbox's uid the process could no longer walk the host
paths (a runtime under /root, say), and never needs to.

The plan, from the runner (JSON): a list of entries, each one of
  {"kind": "ro" | "rw", "source": host path, "target": path}   a bind, read-only or not
  {"kind": "symlink", "target": path, "link": text}
  {"kind": "file", "target": path, "content": text}             a generated read-only file
  {"kind": "dir", "target": path}
  {"kind": "tmpfs", "target": path, "mode": octal text (default "0755")}
  {"kind": "dev"}                                                null, zero, full, random, urandom
  {"kind": "proc"}
"""

import os

import linux

# No tty: a step must not reach the controlling terminal of whoever started the service.
DEVICES = ("null", "zero", "full", "random", "urandom")
_ST_TO_MS = {0x2: linux.MS_NOSUID, 0x4: linux.MS_NODEV, 0x8: linux.MS_NOEXEC, 1024: 1024, 2048: 2048, 4096: 1 << 21}
_RDONLY = 0x1


def open_sources(plan):
    """In a new mount namespace, opens every bind source (and the host's device nodes) as O_PATH
    descriptors, by entry index."""
    linux.unshare(linux.CLONE_NEWNS)
    linux.mount(None, "/", None, linux.MS_REC | linux.MS_PRIVATE)
    fds = {}
    for i, entry in enumerate(plan):
        if entry["kind"] in ("ro", "rw"):
            fds[i] = os.open(entry["source"], os.O_PATH | os.O_CLOEXEC)
        elif entry["kind"] == "dev":
            fds[i] = {name: os.open(f"/dev/{name}", os.O_PATH | os.O_CLOEXEC) for name in DEVICES if os.path.exists(f"/dev/{name}")}
    return fds


def build(plan, fds, staging):
    """Mounts the plan on a fresh tmpfs at `staging` and makes it this process's root."""
    linux.mount("tmpfs", staging, "tmpfs", linux.MS_NOSUID | linux.MS_NODEV, "mode=0755")
    for i, entry in enumerate(plan):
        _add(entry, fds.get(i), staging)
    os.chdir(staging)
    # Both roots at "." then the old one detached: no directory of it is left to reach the host.
    linux.pivot_root(".", ".")
    linux.umount2(".", linux.MNT_DETACH)
    os.chdir("/")
    linux.mount(None, "/", None, linux.MS_REMOUNT | linux.MS_BIND | linux.MS_RDONLY | linux.MS_NOSUID | linux.MS_NODEV)


def _add(entry, fd, root):
    kind = entry.get("kind")
    target = root + entry.get("target", "")
    if kind in ("ro", "rw"):
        is_dir = os.path.isdir(f"/proc/self/fd/{fd}")
        _mountpoint(target, is_dir)
        _bind(fd, target, readonly=kind == "ro", devices=False)
    elif kind == "symlink":
        os.makedirs(os.path.dirname(target), exist_ok=True)
        os.symlink(entry["link"], target)
    elif kind == "file":
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "w") as f:
            f.write(entry["content"])
        os.chmod(target, 0o644)
    elif kind == "dir":
        os.makedirs(target, exist_ok=True)
    elif kind == "tmpfs":
        os.makedirs(target, exist_ok=True)
        linux.mount("tmpfs", target, "tmpfs", linux.MS_NOSUID | linux.MS_NODEV, f"mode={entry.get('mode', '0755')}")
    elif kind == "dev":
        _devices(fd, root)
    elif kind == "proc":
        os.makedirs(root + "/proc", exist_ok=True)
        linux.mount("proc", root + "/proc", "proc", linux.MS_NOSUID | linux.MS_NODEV | linux.MS_NOEXEC)
    else:
        raise ValueError(f"unknown entry in the sandbox plan: {entry!r}")


def _devices(fds, root):
    dev = root + "/dev"
    os.makedirs(dev + "/shm", exist_ok=True)
    for name, fd in fds.items():
        _mountpoint(f"{dev}/{name}", False)
        _bind(fd, f"{dev}/{name}", readonly=False, devices=True)
    for name, link in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"), ("stdout", "/proc/self/fd/1"), ("stderr", "/proc/self/fd/2")):
        os.symlink(link, f"{dev}/{name}")


def _mountpoint(target, is_dir):
    if is_dir:
        os.makedirs(target, exist_ok=True)
    else:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        open(target, "a").close()


def _bind(fd, target, readonly, devices):
    source = f"/proc/self/fd/{fd}"
    try:
        # Not recursive: what is mounted below a source on the host stays out of the sandbox.
        linux.mount(source, target, None, linux.MS_BIND)
    except OSError:
        # A user namespace may not bind a tree apart from its locked submounts.
        linux.mount(source, target, None, linux.MS_BIND | linux.MS_REC)
    flags = linux.MS_BIND | linux.MS_REMOUNT | linux.MS_NOSUID | (0 if devices else linux.MS_NODEV)
    flags |= linux.MS_RDONLY if readonly else 0
    # A remount in a user namespace must keep the flags the host mount has (atime ones included).
    host = os.statvfs(target).f_flag
    flags |= linux.MS_RDONLY if host & _RDONLY else 0
    for st, ms in _ST_TO_MS.items():
        if host & st and not (devices and ms == linux.MS_NODEV):
            flags |= ms
    linux.mount(None, target, None, flags)
