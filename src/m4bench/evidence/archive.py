"""Deterministic ``.tar.zst`` archives: sorted entries, fixed times, owners and modes.

The same files always give the same bytes, so a package's own SHA-256 identifies its
content. Reading refuses anything but regular files with safe relative names.
"""

from __future__ import annotations

import io
import tarfile
from pathlib import Path, PurePosixPath

import zstandard

from m4bench.errors import M4BenchError
from m4bench.fileio import atomic_path

FIXED_MTIME = 0
ZSTD_LEVEL = 10


def write_archive(target: Path, files: dict[str, bytes]) -> None:
    """Write ``files`` (relative POSIX name -> content) as a zstd-compressed tar."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for name in sorted(files):
            data = files[name]
            info = tarfile.TarInfo(check_member_name(name))
            info.size = len(data)
            info.mtime = FIXED_MTIME
            info.mode = 0o644
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            tar.addfile(info, io.BytesIO(data))
    compressed = zstandard.ZstdCompressor(level=ZSTD_LEVEL, threads=0).compress(buffer.getvalue())
    with atomic_path(target) as tmp:
        tmp.write_bytes(compressed)


def read_archive(data: bytes, label: str) -> dict[str, bytes]:
    """Every member of an archive written by :func:`write_archive`."""
    try:
        raw = zstandard.ZstdDecompressor().stream_reader(io.BytesIO(data)).read()
        files: dict[str, bytes] = {}
        with tarfile.open(fileobj=io.BytesIO(raw), mode="r") as tar:
            for member in tar.getmembers():
                if not member.isfile():
                    raise M4BenchError(f"{label}: member {member.name} is not a regular file")
                name = check_member_name(member.name)
                handle = tar.extractfile(member)
                files[name] = handle.read() if handle is not None else b""
    except (tarfile.TarError, zstandard.ZstdError, EOFError) as exc:
        raise M4BenchError(
            f"{label}: not a readable .tar.zst package ({exc})",
            hint="the file is damaged or not an evidence package; re-create it",
        ) from exc
    return files


def check_member_name(name: str) -> str:
    path = PurePosixPath(name)
    if path.is_absolute() or ".." in path.parts or not path.parts:
        raise M4BenchError(f"unsafe name in package: {name!r}", hint="do not trust this package")
    return str(path)
