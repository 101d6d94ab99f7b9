"""Deterministic ``.tar.zst`` archives: sorted entries, fixed times, owners and modes.

The same files always give the same bytes, so a package's own SHA-256 identifies its
content. Archives are written and read as streams (one file in memory at a time), and
reading refuses anything but regular files with safe relative names.
"""

from __future__ import annotations

import hashlib
import io
import tarfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO

import zstandard

from m4bench.errors import M4BenchError
from m4bench.fileio import atomic_path

FIXED_MTIME = 0
ZSTD_LEVEL = 10
_CHUNK = 1 << 20


@dataclass(frozen=True)
class Member:
    """One file read from an archive: its size, SHA-256 and, when asked for, its bytes."""

    name: str
    size: int
    sha256: str
    data: bytes | None


def _info(name: str, size: int) -> tarfile.TarInfo:
    info = tarfile.TarInfo(check_member_name(name))
    info.size = size
    info.mtime = FIXED_MTIME
    info.mode = 0o644
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    return info


def write_entries(
    target: Path, entries: Iterable[tuple[str, int, Callable[[], IO[bytes]]]]
) -> None:
    """Stream ``(name, size, open)`` entries, sorted by name, into a zstd-compressed tar."""
    compressor = zstandard.ZstdCompressor(level=ZSTD_LEVEL, threads=0)
    with atomic_path(target) as tmp, tmp.open("wb") as raw:
        _stream(raw, compressor, sorted(entries, key=lambda e: e[0]))


def _stream(
    raw: IO[bytes],
    compressor: zstandard.ZstdCompressor,
    entries: list[tuple[str, int, Callable[[], IO[bytes]]]],
) -> None:
    with (
        compressor.stream_writer(raw, closefd=False) as stream,
        tarfile.open(fileobj=stream, mode="w|", format=tarfile.PAX_FORMAT) as tar,
    ):
        for name, size, opener in entries:
            with opener() as handle:
                tar.addfile(_info(name, size), handle)


def write_directory(target: Path, root: Path, names: Iterable[str]) -> None:
    """Archive the files ``names`` (relative POSIX paths) under ``root``."""
    entries = [(name, (root / name).stat().st_size, _opener(root / name)) for name in names]
    write_entries(target, entries)


def _opener(path: Path) -> Callable[[], IO[bytes]]:
    return lambda: path.open("rb")


def write_archive(target: Path, files: dict[str, bytes]) -> None:
    """Write in-memory ``files`` (relative POSIX name -> content)."""
    write_entries(target, [(name, len(data), _bytes_opener(data)) for name, data in files.items()])


def _bytes_opener(data: bytes) -> Callable[[], IO[bytes]]:
    return lambda: io.BytesIO(data)


def iter_archive(path: Path, keep: Callable[[str], bool]) -> Iterator[Member]:
    """Every member of the archive at ``path``, hashed while streaming; the bytes of
    members for which ``keep(name)`` is true are returned too."""
    label = str(path)
    try:
        with path.open("rb") as raw:
            reader = zstandard.ZstdDecompressor().stream_reader(raw)
            with tarfile.open(fileobj=reader, mode="r|") as tar:
                for info in tar:
                    if not info.isfile():
                        raise M4BenchError(f"{label}: member {info.name} is not a regular file")
                    yield _member(tar, info, keep)
    except (tarfile.TarError, zstandard.ZstdError, EOFError, OSError) as exc:
        raise M4BenchError(
            f"{label}: not a readable .tar.zst package ({exc})",
            hint="the file is damaged or not an evidence package; re-create it",
        ) from exc


def _member(tar: tarfile.TarFile, info: tarfile.TarInfo, keep: Callable[[str], bool]) -> Member:
    name = check_member_name(info.name)
    handle = tar.extractfile(info)
    digest, size, chunks = hashlib.sha256(), 0, []
    wanted = keep(name)
    while handle is not None and (chunk := handle.read(_CHUNK)):
        digest.update(chunk)
        size += len(chunk)
        if wanted:
            chunks.append(chunk)
    return Member(name, size, digest.hexdigest(), b"".join(chunks) if wanted else None)


def read_archive(path: Path) -> dict[str, bytes]:
    """Every member's bytes (for small archives and tests)."""
    return {m.name: m.data or b"" for m in iter_archive(path, lambda _name: True)}


def check_member_name(name: str) -> str:
    path = PurePosixPath(name)
    if path.is_absolute() or ".." in path.parts or not path.parts:
        raise M4BenchError(f"unsafe name in package: {name!r}", hint="do not trust this package")
    return str(path)
