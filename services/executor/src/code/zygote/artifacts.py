"""Reads a step's artifacts for the runner, as the step's own uid, once every process of the step
is dead: nothing here can reach a file the step could not. Each name is opened beneath the
directory already open (openat2 with RESOLVE_BENEATH and no symbolic or magic links where the
kernel has it, else O_NOFOLLOW one component at a time), and checked on the open descriptor, so
a link or a file swapped in is never followed.

Sent on the artifacts connection: for each regular file, a JSON line {"path", "size"} and then
exactly `size` bytes; at the end {"end": true}, or {"error": message} at the first limit passed.
"""

import json
import os
import signal
import socket
import stat

import confine
import linux

MAX_ENTRIES = 10_000
MAX_DEPTH = 32
_RESOLVE = linux.RESOLVE_BENEATH | linux.RESOLVE_NO_SYMLINKS | linux.RESOLVE_NO_MAGICLINKS | linux.RESOLVE_NO_XDEV
_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


class LimitPassed(Exception):
    pass


def open_beneath(dir_fd, name, flags=_FLAGS):
    fd = linux.openat2(dir_fd, name, flags, _RESOLVE)
    return fd if fd is not None else os.open(name, flags, dir_fd=dir_fd)


def run_reader(ctl_dir, request):
    """The artifact reader: forked by the zygote once the step's processes are gone, it connects
    with its token (as the zygote's uid, which the socket is for), becomes the step's uid and
    sends the step's artifacts. Never returns."""
    try:
        linux.prctl(linux.PR_SET_PDEATHSIG, signal.SIGKILL, what="parent death signal")
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.connect(os.path.join(ctl_dir, "stdio.sock"))
        sock.sendall(request["artifacts"].encode() + b"\n")
        if confine.own_uid(request):
            confine.drop_privileges(request["uid"], request["uid"], request["confined"])
        send(sock, request["runDir"], request["limits"])
        sock.close()
    finally:
        os._exit(0)


def send(sock, run_dir, limits):
    try:
        run_fd = os.open(run_dir, _FLAGS | os.O_DIRECTORY)
        try:
            root = open_beneath(run_fd, "artifacts", _FLAGS | os.O_DIRECTORY)
        finally:
            os.close(run_fd)
        files = []
        _walk(root, "", 0, files, [0], limits)
        for path, fd, size in files:
            sock.sendall((json.dumps({"path": path, "size": size}) + "\n").encode())
            _copy(fd, size, sock)
            os.close(fd)
        sock.sendall(b'{"end": true}\n')
    except LimitPassed as e:
        sock.sendall((json.dumps({"error": str(e)}) + "\n").encode())
    except OSError as e:
        sock.sendall((json.dumps({"error": f"artifacts could not be read: {e.strerror or e}"}) + "\n").encode())


def _walk(dir_fd, prefix, depth, files, seen, limits):
    """Adds the regular files below `dir_fd` (which it closes) to `files`."""
    if depth > MAX_DEPTH:
        raise LimitPassed(f"artifact directories nest deeper than {MAX_DEPTH} levels")
    with os.scandir(dir_fd) as entries:
        names = sorted(e.name for e in entries)
    for name in names:
        seen[0] += 1
        if seen[0] > MAX_ENTRIES:
            raise LimitPassed(f"more than {MAX_ENTRIES} entries in the artifacts directory")
        try:
            fd = open_beneath(dir_fd, name)
        except OSError:
            continue  # a link, or what the step made unreadable: not an artifact
        info = os.fstat(fd)
        path = f"{prefix}{name}"
        if stat.S_ISDIR(info.st_mode):
            _walk(fd, f"{path}/", depth + 1, files, seen, limits)
        elif stat.S_ISREG(info.st_mode):
            _count(files, path, info.st_size, limits)
            files.append((path, fd, info.st_size))
        else:
            os.close(fd)
    os.close(dir_fd)


def _count(files, path, size, limits):
    if len(files) >= limits["artifactFiles"]:
        raise LimitPassed(f"more than {limits['artifactFiles']} artifact files (the limit per step)")
    if size > limits["artifactFileBytes"]:
        raise LimitPassed(f"artifact {path} exceeds {describe(limits['artifactFileBytes'])} (the limit per file)")
    if sum(s for _, _, s in files) + size > limits["artifactTotalBytes"]:
        raise LimitPassed(f"artifacts exceed {describe(limits['artifactTotalBytes'])} in all (the limit per step)")


def _copy(fd, size, sock):
    left = size
    while left > 0:
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            # Cannot shrink with the step dead; fill so the framing holds, and let the size speak.
            chunk = b"\0" * left
        sock.sendall(chunk)
        left -= len(chunk)


def describe(n):
    """10 MB, 64 KB or 1000 bytes: limits are usually round (as the runner words them)."""
    if n >= 1 << 20 and n % (1 << 20) == 0:
        return f"{n >> 20} MB"
    if n >= 1 << 10 and n % (1 << 10) == 0:
        return f"{n >> 10} KB"
    return f"{n} bytes"
