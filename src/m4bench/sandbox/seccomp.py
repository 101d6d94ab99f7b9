"""A seccomp filter that refuses new user namespaces inside the sandbox.

Inside a user namespace of its own an agent would hold every capability there: it could
mount file systems, start a nested bubblewrap and build itself a different view of the
machine. A root harness cannot use bubblewrap's ``--disable-userns`` (that needs a user
namespace of the sandbox's own, which would map the agent to host root), so both bwrap
paths load this filter instead (``bwrap --seccomp FD``): ``unshare`` and ``clone`` with
``CLONE_NEWUSER`` fail with EPERM, ``clone3`` (whose flags a filter cannot read) fails
with ENOSYS so that the C library falls back to ``clone``, and system calls of another
ABI (32-bit or x32 on x86-64) fail with EPERM, since their numbers differ.

The program is classic BPF as the kernel takes it: an array of ``struct sock_filter``
in the host's byte order.
"""

from __future__ import annotations

import errno
import os
import platform
import struct
import sys
from dataclasses import dataclass

from m4bench.errors import M4BenchError

CLONE_NEWUSER = 0x10000000
_X32_BIT = 0x40000000

# Classic BPF opcodes.
_LD_W_ABS = 0x20
_JEQ_K = 0x15
_JGE_K = 0x35
_JSET_K = 0x45
_RET_K = 0x06

_RET_ALLOW = 0x7FFF0000
_RET_ERRNO = 0x00050000


@dataclass(frozen=True)
class _Abi:
    audit_arch: int
    clone: int
    unshare: int
    clone3: int
    x32_bit: bool


_ABIS = {
    "x86_64": _Abi(audit_arch=0xC000003E, clone=56, unshare=272, clone3=435, x32_bit=True),
    "aarch64": _Abi(audit_arch=0xC00000B7, clone=220, unshare=97, clone3=435, x32_bit=False),
}

# Offsets in struct seccomp_data: nr (u32), arch (u32), instruction_pointer (u64), args.
_NR, _ARCH = 0, 4
_ARG0_LOW = 16 if sys.byteorder == "little" else 20

_Insn = tuple[int, str | int, str | int, int]
"""(opcode, jump if true, jump if false, constant); a jump is a label or an offset."""


def _program(abi: _Abi) -> list[_Insn | str]:
    """Instructions with symbolic jump targets (labels), resolved by :func:`_assemble`."""
    eperm, enosys = _RET_ERRNO | errno.EPERM, _RET_ERRNO | errno.ENOSYS
    insns: list[_Insn | str] = [
        (_LD_W_ABS, 0, 0, _ARCH),
        (_JEQ_K, 0, "deny", abi.audit_arch),
        (_LD_W_ABS, 0, 0, _NR),
    ]
    if abi.x32_bit:
        insns.append((_JGE_K, "deny", 0, _X32_BIT))
    insns += [
        (_JEQ_K, "nosys", 0, abi.clone3),
        (_JEQ_K, "flags", 0, abi.unshare),
        (_JEQ_K, "flags", "allow", abi.clone),
        "flags",
        (_LD_W_ABS, 0, 0, _ARG0_LOW),
        (_JSET_K, "deny", "allow", CLONE_NEWUSER),
        "allow",
        (_RET_K, 0, 0, _RET_ALLOW),
        "deny",
        (_RET_K, 0, 0, eperm),
        "nosys",
        (_RET_K, 0, 0, enosys),
    ]
    return insns


def _assemble(program: list[_Insn | str]) -> bytes:
    """Resolve labels (the strings between instructions) into relative jump offsets."""
    labels: dict[str, int] = {}
    code: list[_Insn] = []
    for row in program:
        if isinstance(row, str):
            labels[row] = len(code)
        else:
            code.append(row)
    out = b""
    for index, (op, jt, jf, k) in enumerate(code):
        jumps = [labels[t] - index - 1 if isinstance(t, str) else t for t in (jt, jf)]
        out += struct.pack("=HBBI", op, *jumps, k)
    return out


def userns_filter(machine: str | None = None) -> bytes:
    """The compiled filter for this machine's architecture (or ``machine``)."""
    name = machine or platform.machine()
    abi = _ABIS.get(name)
    if abi is None:
        raise M4BenchError(
            f"sandbox bwrap: no user-namespace filter for the {name} architecture",
            hint=f"run on one of: {', '.join(sorted(_ABIS))}, or choose --sandbox docker",
        )
    return _assemble(_program(abi))


def filter_fd(program: bytes) -> int:
    """An open, rewound, anonymous in-memory file holding ``program`` (no path on disk);
    the caller passes it to bwrap and closes it."""
    fd = os.memfd_create("m4bench-seccomp", 0)
    os.write(fd, program)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd
