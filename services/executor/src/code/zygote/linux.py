"""The Linux system calls the sandbox needs and Python's os module lacks, through ctypes: no
compiled extension, nothing to install beside the interpreter."""

import ctypes
import fcntl
import os
import platform
import socket
import struct

_libc = ctypes.CDLL(None, use_errno=True)
_libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
_libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]
_libc.syscall.restype = ctypes.c_long

CLONE_NEWNS = 0x00020000
CLONE_NEWCGROUP = 0x02000000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000

MS_RDONLY = 0x1
MS_NOSUID = 0x2
MS_NODEV = 0x4
MS_NOEXEC = 0x8
MS_REMOUNT = 0x20
MS_BIND = 0x1000
MS_REC = 0x4000
MS_PRIVATE = 0x40000
MNT_DETACH = 0x2

PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_CAPBSET_DROP = 24
PR_SET_NO_NEW_PRIVS = 38
PR_SET_CHILD_SUBREAPER = 36
PR_SET_SECCOMP = 22
PR_CAP_AMBIENT = 47
PR_CAP_AMBIENT_CLEAR_ALL = 4
SECCOMP_MODE_FILTER = 2

# The system calls beyond os's reach, by machine: x86_64 has its own table, arm64 the generic one.
_SYSCALLS = {"x86_64": {"openat2": 437, "pivot_root": 155}, "aarch64": {"openat2": 437, "pivot_root": 41}}
MACHINE = platform.machine()


def _check(result, what):
    if result < 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")
    return result


def unshare(flags):
    _check(_libc.unshare(flags), "unshare")


def setns(fd, nstype):
    _check(_libc.setns(fd, nstype), "setns")


def mount(source, target, fstype, flags, data=None):
    encode = lambda s: None if s is None else s.encode()  # noqa: E731
    _check(_libc.mount(encode(source), target.encode(), encode(fstype), flags, encode(data)), f"mount {target}")


def umount2(target, flags):
    _check(_libc.umount2(target.encode(), flags), f"umount {target}")


def pivot_root(new_root, put_old):
    number = _SYSCALLS[MACHINE]["pivot_root"]
    _check(_libc.syscall(number, new_root.encode(), put_old.encode()), "pivot_root")


def sethostname(name):
    raw = name.encode()
    _check(_libc.sethostname(raw, len(raw)), "sethostname")


def prctl(option, arg2=0, arg3=0, arg4=0, arg5=0, what="prctl"):
    return _check(_libc.prctl(option, arg2, arg3, arg4, arg5), what)


def _last_capability():
    with open("/proc/sys/kernel/cap_last_cap") as f:
        return int(f.read())


# Read once, in the zygote.
CAPABILITIES = range(_last_capability() + 1)


def drop_bounding_set():
    """Empties this process's capability bounding set, which every process it forks inherits: no
    capability can be gained on exec any more. The capabilities it has stay."""
    for cap in CAPABILITIES:
        prctl(PR_CAPBSET_DROP, cap, what="drop a capability from the bounding set")


class _OpenHow(ctypes.Structure):
    _fields_ = [("flags", ctypes.c_uint64), ("mode", ctypes.c_uint64), ("resolve", ctypes.c_uint64)]


RESOLVE_NO_XDEV = 0x01
RESOLVE_NO_MAGICLINKS = 0x02
RESOLVE_NO_SYMLINKS = 0x04
RESOLVE_BENEATH = 0x08


def openat2(dir_fd, name, flags, resolve):
    """openat2(2), or None where the kernel (before 5.6) or the machine lacks it."""
    number = _SYSCALLS.get(MACHINE, {}).get("openat2")
    if number is None:
        return None
    how = _OpenHow(flags, 0, resolve)
    fd = _libc.syscall(number, dir_fd, name.encode(), ctypes.byref(how), ctypes.sizeof(how))
    if fd < 0:
        err = ctypes.get_errno()
        if err == 38:  # ENOSYS
            return None
        raise OSError(err, f"openat2 {name}: {os.strerror(err)}")
    return fd


def loopback_up():
    """Brings up `lo` in a new network namespace, where it starts down (SIOCSIFFLAGS)."""
    iff_up, iff_loopback, iff_running = 0x1, 0x8, 0x40
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        fcntl.ioctl(s, 0x8914, struct.pack("16sH14s", b"lo", iff_up | iff_loopback | iff_running, b""))


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


class Filter:
    """A seccomp BPF program (bytes of struct sock_filter), laid out once, in the zygote, so that
    installing it in a step's process is one system call."""

    def __init__(self, program):
        self._buffer = ctypes.create_string_buffer(program, len(program))
        self._fprog = _SockFprog(len(program) // 8, ctypes.addressof(self._buffer))

    def install(self):
        """For this process and its children, for good."""
        prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.addressof(self._fprog), what="seccomp")
