"""How the analysis writes its outputs: atomically, readable as any new file is.

The atomic writer makes its temporary file 0600 (it also writes ground truth). The
analysis writes statistics, tables and figures, never truth rows, so its files get the
permissions a new file gets under the process's umask (0644 under the usual 022).
"""

from __future__ import annotations

from pathlib import Path

from m4bench.fileio import atomic_path


def current_umask() -> int:
    """The process's file-creation mask, read without changing it (Linux reports it in
    /proc/self/status; elsewhere the common 022 is assumed)."""
    try:
        for line in Path("/proc/self/status").read_text(encoding="ascii").splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    return 0o022


def write_output(target: Path, data: bytes | str) -> None:
    """Write ``data`` to ``target`` atomically, mode ``0666 & ~umask``."""
    payload = data.encode("utf-8") if isinstance(data, str) else data
    with atomic_path(target) as tmp:
        tmp.write_bytes(payload)
        tmp.chmod(0o666 & ~current_umask())
