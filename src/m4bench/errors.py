"""Errors a user can act on: every one says what went wrong and what to do."""

from __future__ import annotations

import errno
import os
from pathlib import Path


class M4BenchError(Exception):
    """A failure caused by input or environment, reported without a traceback.

    ``hint`` says what to do about it; the CLI prints it after the message.
    """

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        if self.hint:
            return f"{self.message}\n  hint: {self.hint}"
        return self.message


# errno -> (what went wrong in plain words, what to do about it); ``{path}`` is the path shown
_OS_PROBLEMS: dict[int, tuple[str, str]] = {
    errno.ENOTDIR: (
        "is a file, where a folder is needed",
        "move or rename the file {path}, or choose another location",
    ),
    errno.EISDIR: (
        "is a folder, where a file is needed",
        "choose a file name (not an existing folder), or move the folder {path} away",
    ),
    errno.EACCES: (
        "permission denied",
        "check the permissions of {path} (ls -ld {path}), or choose another location",
    ),
    errno.EPERM: (
        "operation not permitted",
        "check the permissions of {path} (ls -ld {path}), or choose another location",
    ),
    errno.EROFS: (
        "is on a read-only file system",
        "choose a location on a writable disk",
    ),
    errno.ENOSPC: (
        "no space left on device",
        "free some space on that disk (df -h {path}), or choose a location on another disk",
    ),
    errno.EDQUOT: (
        "disk quota exceeded",
        "free some space within your quota, or choose a location on another disk",
    ),
    errno.ENOENT: ("no such file or folder", "check the path"),
    errno.ENOTEMPTY: ("is a folder that is not empty", "empty or remove {path}, or choose another"),
    errno.ENAMETOOLONG: ("the name is too long", "choose a shorter path"),
    errno.ELOOP: ("too many levels of symbolic links", "check the symbolic links in {path}"),
    errno.EXDEV: (
        "cannot be moved to another file system",
        "keep the files on one disk, or choose a location on the same disk",
    ),
    errno.EIO: ("input/output error", "check the disk: it may be failing or disconnected"),
}


def from_os_error(exc: OSError) -> M4BenchError | None:
    """The user error for a file-system failure that names a file, else None.

    The path shown is the one the user can act on: the file standing where a folder is
    needed (not the path below it that could not be made), the existing folder that
    refused a write, the target of a rename (not the temporary file renamed). An
    OSError naming no file (a socket, a process) is left to show its traceback.
    """
    names = [_path_of(exc.filename2), _path_of(exc.filename)]
    candidates = [name for name in names if name is not None]
    if not candidates:
        return None
    code = exc.errno if exc.errno is not None else -1
    if code == errno.EEXIST:
        return _exists_error(candidates[0])
    path = _culprit(code, candidates)
    what, hint = _OS_PROBLEMS.get(code, ((exc.strerror or str(exc)).lower(), "check {path}"))
    shown = str(path)
    suffix = "" if path in candidates else f" (for {candidates[0]})"
    return M4BenchError(f"{shown}: {what}{suffix}", hint=hint.format(path=shown))


def _exists_error(path: Path) -> M4BenchError:
    if path.is_dir():
        return M4BenchError(f"{path}: already exists", hint=f"remove {path}, or choose another")
    what, hint = _OS_PROBLEMS[errno.ENOTDIR]
    return M4BenchError(f"{path}: {what}", hint=hint.format(path=path))


def _path_of(name: object) -> Path | None:
    if isinstance(name, str | bytes | os.PathLike):
        return Path(os.fsdecode(name))
    return None


def _culprit(code: int, candidates: list[Path]) -> Path:
    """Which of the failing call's paths (target first), or which folder above one, to show."""
    if code == errno.ENOTDIR:
        for name in candidates:
            found = _nearest_existing(name)
            if found is not None and not found.is_dir():
                return found
    if code == errno.EISDIR:
        return next((name for name in candidates if name.is_dir()), candidates[0])
    if code in (errno.EACCES, errno.EPERM):
        return _nearest_existing(candidates[0]) or candidates[0]
    if code in (errno.EROFS, errno.ENOSPC, errno.EDQUOT):  # about the disk: show its folder
        return _nearest_existing(candidates[0].parent) or candidates[0]
    return candidates[0]


def _nearest_existing(path: Path) -> Path | None:
    """``path`` or its closest ancestor that exists (a broken link counts)."""
    for candidate in (path, *path.parents):
        if candidate.exists() or candidate.is_symlink():
            return candidate
    return None


def is_interruption(exc: BaseException) -> bool:
    """Whether ``exc`` is Ctrl-C (or SIGTERM, which the command line turns into it) as it
    surfaces: KeyboardInterrupt itself, or DuckDB's report of the query it stopped."""
    if isinstance(exc, KeyboardInterrupt):
        return True
    if type(exc).__name__ == "InterruptException":  # duckdb.InterruptException
        return True
    return isinstance(exc, RuntimeError) and str(exc).startswith("Query interrupted")
