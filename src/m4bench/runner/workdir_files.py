"""Taking files out of a workdir the agent controlled, and removing what is left.

Whatever the agent leaves where a file should be (a directory, a FIFO, a link, a device
node), however it sets modes, however deep its trees or large its files, these
functions read bounded amounts, never follow a link, never block on a FIFO and never
raise for what the agent left: a file they cannot take is a :class:`Taken` refusal with
a sentence saying why (the run's ``status_detail``), not a harness error.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from m4bench.fileio import make_private

DEFAULT_MAX_OUTPUT_BYTES = 2 << 30
"""The largest ``output.csv`` taken (2 GiB): generous for any task's rows."""
_CHUNK = 1 << 20
_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISLNK, "a symbolic link"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


@dataclass(frozen=True)
class Taken:
    """What became of a file the harness wanted: copied, absent, or refused (and why)."""

    copied: bool
    refusal: str | None = None


def kind_of(mode: int) -> str:
    """``a directory``, ``a FIFO``... for a file mode; ``a regular file`` otherwise."""
    return next((name for test, name in _KINDS if test(mode)), "a regular file")


def take_regular_file(source: Path, target: Path, max_bytes: int) -> Taken:
    """Copy ``source`` to ``target`` (mode 0600) if it is a regular file of at most
    ``max_bytes`` bytes without holes. Only a file of that kind is ever opened (a device
    or a FIFO is not), through no link; the copy stops at ``max_bytes``."""
    name = source.name
    try:
        seen = os.lstat(source)
    except FileNotFoundError:
        return Taken(False)
    except OSError as exc:
        return Taken(False, f"{name} could not be examined ({exc.strerror})")
    if not stat.S_ISREG(seen.st_mode):
        return Taken(False, f"{name} is {kind_of(seen.st_mode)}, not a regular file")
    try:
        fd = os.open(source, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        mode = stat.filemode(seen.st_mode)
        return Taken(False, f"{name} could not be read ({exc.strerror}; mode {mode})")
    try:
        info = os.fstat(fd)
        if (info.st_dev, info.st_ino) != (seen.st_dev, seen.st_ino):
            return Taken(False, f"{name} was replaced while the harness read it")
        problem = _size_problem(fd, info.st_size, max_bytes)
        if problem is not None:
            return Taken(False, f"{name} {problem}")
        if not _copy_at_most(fd, target, max_bytes):
            target.unlink(missing_ok=True)
            return Taken(False, f"{name} grew past the cap of {max_bytes} bytes")
    finally:
        os.close(fd)
    return Taken(True)


def explain_refusal(status: str, detail: str, refusal: str | None) -> str:
    """The status detail with the reason an output was refused, when it was."""
    if refusal is None:
        return detail
    if status == "no_output":
        return f"no usable output.csv: {refusal}"
    return f"{detail}; output.csv not taken: {refusal}" if detail else refusal


def _size_problem(fd: int, size: int, max_bytes: int) -> str | None:
    if size > max_bytes:
        return (
            f"is {size} bytes, over the cap of {max_bytes} bytes on a run's output "
            "(RunOptions.max_output_bytes)"
        )
    try:
        hole = os.lseek(fd, 0, os.SEEK_HOLE)
    except OSError:
        hole = size  # no hole reporting on this filesystem: the copy is bounded anyway
    finally:
        os.lseek(fd, 0, os.SEEK_SET)
    if hole < size:
        return (
            f"is a sparse file ({size} bytes, a hole from byte {hole}): holes read as NUL "
            "bytes, which no CSV holds"
        )
    return None


def _copy_at_most(fd: int, target: Path, max_bytes: int) -> bool:
    """Copy from ``fd`` into ``target``; False when there was more than ``max_bytes``."""
    copied = 0
    out = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
    with os.fdopen(out, "wb") as handle:
        while chunk := os.read(fd, _CHUNK):
            copied += len(chunk)
            if copied > max_bytes:
                return False
            handle.write(chunk)
    make_private(target)
    return True


def remove_tree(root: Path) -> bool:
    """Remove ``root`` and everything under it; True when it is gone.

    Never recurses and holds two descriptors at most: each directory is emptied at the
    top, its subdirectories first moved up beside it, so a tree of any depth goes.
    Links are removed, never followed; directories the agent made unreadable are given
    back their owner's permissions first. Errors are swallowed: what cannot be removed
    stays, and the result says so.
    """
    try:
        top = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except FileNotFoundError:
        return True
    except OSError:
        _unlink(root)
        return not os.path.lexists(root)
    try:
        os.fchmod(top, 0o700)
        _empty(top)
    except OSError:
        pass
    finally:
        os.close(top)
    try:
        os.rmdir(root)
    except OSError:
        return not os.path.lexists(root)
    return True


def _empty(top: int) -> None:
    """Empty the directory open as ``top``, level by level, at its own depth."""
    moved = 0
    progress = True
    while progress:
        progress = False
        for name in _names(top):
            if not _is_dir(name, top):
                _unlink_at(name, top)
                continue
            moved = _flatten(name, top, moved)
            try:
                os.rmdir(name, dir_fd=top)
                progress = True
            except OSError:
                continue


def _flatten(name: str, top: int, moved: int) -> int:
    """Delete the files of ``top/name`` and move its subdirectories up into ``top``."""
    try:
        os.chmod(name, 0o700, dir_fd=top)
        inner = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=top)
    except OSError:
        return moved
    try:
        for child in _names(inner):
            if not _is_dir(child, inner):
                _unlink_at(child, inner)
                continue
            while True:
                moved += 1
                try:
                    os.rename(child, f".m4bench-rm-{moved}", src_dir_fd=inner, dst_dir_fd=top)
                    break
                except OSError as exc:
                    if exc.errno not in (errno.EEXIST, errno.ENOTEMPTY):
                        break
    finally:
        os.close(inner)
    return moved


def _names(fd: int) -> list[str]:
    try:
        with os.scandir(fd) as entries:
            return [entry.name for entry in entries]
    except OSError:
        return []


def _is_dir(name: str, dir_fd: int) -> bool:
    try:
        return stat.S_ISDIR(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode)
    except OSError:
        return False


def _unlink_at(name: str, dir_fd: int) -> None:
    with contextlib.suppress(OSError):
        os.unlink(name, dir_fd=dir_fd)


def _unlink(path: Path) -> None:
    with contextlib.suppress(OSError):
        path.unlink()
