"""The seccomp filter of every step process: refuses (EPERM) the system calls no step needs and
that widen what a process can reach: other processes' memory, mounts and namespaces, kernel
keyrings, BPF, perf, io_uring, modules, clocks; and, by argument, clone into namespaces, the
ioctls that type into or drive a terminal (TIOCSTI, TIOCLINUX), and vsock sockets (a way to the
host that network namespaces do not hold). Calls of another ABI than the machine's (x32, 32-bit
compat) kill the process: the filter's numbers are those of the native table only."""

import errno
import struct

from linux import (
    CLONE_NEWCGROUP,
    CLONE_NEWIPC,
    CLONE_NEWNET,
    CLONE_NEWNS,
    CLONE_NEWPID,
    CLONE_NEWUSER,
    CLONE_NEWUTS,
    MACHINE,
)

DENIED = (
    "ptrace process_vm_readv process_vm_writev kcmp pidfd_getfd "
    "mount umount2 pivot_root chroot move_mount open_tree fsopen fsconfig fsmount fspick mount_setattr "
    "unshare setns "
    "keyctl add_key request_key bpf perf_event_open userfaultfd "
    "io_uring_setup io_uring_enter io_uring_register "
    "kexec_load kexec_file_load init_module finit_module delete_module "
    "iopl ioperm swapon swapoff reboot acct quotactl quotactl_fd syslog lookup_dcookie "
    "open_by_handle_at name_to_handle_at fanotify_init "
    "settimeofday clock_settime clock_adjtime adjtimex vhangup"
).split()

_X86_64 = {
    "ptrace": 101, "process_vm_readv": 310, "process_vm_writev": 311, "kcmp": 312, "pidfd_getfd": 438,
    "mount": 165, "umount2": 166, "pivot_root": 155, "chroot": 161, "move_mount": 429, "open_tree": 428,
    "fsopen": 430, "fsconfig": 431, "fsmount": 432, "fspick": 433, "mount_setattr": 442,
    "unshare": 272, "setns": 308, "keyctl": 250, "add_key": 248, "request_key": 249, "bpf": 321,
    "perf_event_open": 298, "userfaultfd": 323, "io_uring_setup": 425, "io_uring_enter": 426,
    "io_uring_register": 427, "kexec_load": 246, "kexec_file_load": 320, "init_module": 175,
    "finit_module": 313, "delete_module": 176, "iopl": 172, "ioperm": 173, "swapon": 167, "swapoff": 168,
    "reboot": 169, "acct": 163, "quotactl": 179, "quotactl_fd": 443, "syslog": 103, "lookup_dcookie": 212,
    "open_by_handle_at": 304, "name_to_handle_at": 303, "fanotify_init": 300, "settimeofday": 164,
    "clock_settime": 227, "clock_adjtime": 305, "adjtimex": 159, "vhangup": 153,
    "clone": 56, "clone3": 435, "ioctl": 16, "socket": 41,
}
# arm64 uses the generic table, which has no iopl or ioperm.
_AARCH64 = {
    "ptrace": 117, "process_vm_readv": 270, "process_vm_writev": 271, "kcmp": 272, "pidfd_getfd": 438,
    "mount": 40, "umount2": 39, "pivot_root": 41, "chroot": 51, "move_mount": 429, "open_tree": 428,
    "fsopen": 430, "fsconfig": 431, "fsmount": 432, "fspick": 433, "mount_setattr": 442,
    "unshare": 97, "setns": 268, "keyctl": 219, "add_key": 217, "request_key": 218, "bpf": 280,
    "perf_event_open": 241, "userfaultfd": 282, "io_uring_setup": 425, "io_uring_enter": 426,
    "io_uring_register": 427, "kexec_load": 104, "kexec_file_load": 294, "init_module": 105,
    "finit_module": 273, "delete_module": 106, "swapon": 224, "swapoff": 225, "reboot": 142, "acct": 89,
    "quotactl": 60, "quotactl_fd": 443, "syslog": 116, "lookup_dcookie": 18, "open_by_handle_at": 265,
    "name_to_handle_at": 264, "fanotify_init": 262, "settimeofday": 170, "clock_settime": 112,
    "clock_adjtime": 266, "adjtimex": 171, "vhangup": 58,
    "clone": 220, "clone3": 435, "ioctl": 29, "socket": 198,
}
_TABLES = {"x86_64": (0xC000003E, _X86_64), "aarch64": (0xC00000B7, _AARCH64)}

_LD_W_ABS = 0x20
_JEQ = 0x15
_JGE = 0x35
_JSET = 0x45
_RET = 0x06
_RET_KILL_PROCESS = 0x80000000
_RET_ERRNO = 0x00050000
_RET_ALLOW = 0x7FFF0000
_X32_SYSCALL_BIT = 0x40000000
# Offsets in struct seccomp_data; the low halves of args[0] and args[1] on a little-endian machine.
_NR, _ARCH, _ARG0_LOW, _ARG1_LOW = 0, 4, 16, 24
_TIOCSTI, _TIOCLINUX = 0x5412, 0x541C
_AF_VSOCK = 40
_NAMESPACE_FLAGS = CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET


def _assemble(program):
    """Bytes of struct sock_filter from (code, k, jt, jf) rows whose jumps name labels ("label" rows mark them)."""
    rows = [r for r in program if r[0] != "label"]
    where, index = {}, 0
    for r in program:
        if r[0] == "label":
            where[r[1]] = index
        else:
            index += 1
    out = []
    for i, (code, k, jt, jf) in enumerate(rows):
        jump = lambda to: 0 if to is None else where[to] - i - 1  # noqa: E731
        out.append(struct.pack("HBBI", code, jump(jt), jump(jf), k))
    return b"".join(out)


def supported():
    return MACHINE in _TABLES


def program():
    """The filter as bytes of struct sock_filter, for this machine's native system call table."""
    arch, table = _TABLES[MACHINE]
    eperm, enosys = _RET_ERRNO | errno.EPERM, _RET_ERRNO | errno.ENOSYS
    rows = [
        (_LD_W_ABS, _ARCH, None, None),
        (_JEQ, arch, None, "kill"),
        (_LD_W_ABS, _NR, None, None),
    ]
    if MACHINE == "x86_64":
        rows.append((_JGE, _X32_SYSCALL_BIT, "kill", None))
    rows += [(_JEQ, table[name], "deny", None) for name in DENIED if name in table]
    rows += [
        # clone3 passes its flags in memory a filter cannot read: ENOSYS makes libc fall back to clone.
        (_JEQ, table["clone3"], "nosys", None),
        # clone may fork and make threads, but not enter new namespaces.
        (_JEQ, table["clone"], None, "ioctl"),
        (_LD_W_ABS, _ARG0_LOW, None, None),
        (_JSET, _NAMESPACE_FLAGS, "deny", "allow"),
        ("label", "ioctl"),
        (_JEQ, table["ioctl"], None, "socket"),
        (_LD_W_ABS, _ARG1_LOW, None, None),
        (_JEQ, _TIOCSTI, "deny", None),
        (_JEQ, _TIOCLINUX, "deny", "allow"),
        ("label", "socket"),
        (_JEQ, table["socket"], None, "allow"),
        (_LD_W_ABS, _ARG0_LOW, None, None),
        (_JEQ, _AF_VSOCK, "deny", "allow"),
        ("label", "allow"),
        (_RET, _RET_ALLOW, None, None),
        ("label", "deny"),
        (_RET, eperm, None, None),
        ("label", "nosys"),
        (_RET, enosys, None, None),
        ("label", "kill"),
        (_RET, _RET_KILL_PROCESS, None, None),
    ]
    return _assemble(rows)
