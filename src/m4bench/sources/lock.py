"""One writer per source name: an exclusive lock held while a source is being written.

The lock is the file ``sources/.<name>.lock``, beside the source's folder rather than in
it: it exists before the folder does (a first ingest, a synthetic build staged in
``sources/.<name>.building``) and outlives the folder being replaced (``synth --force``
renames a new folder over the old one). Ingest, attach-m4, concept builds and synth all
take it, so two writers of one name never overlap. The file is removed on release; a
process that locked a file just removed that way sees it and takes the new one.

Homes written by older m4bench versions may hold ``<source>/.lock``: when it exists it is
locked too, so a writer of either version keeps out the other.

Holding the lock, nobody else can be writing the source, so the temporary files of
interrupted atomic writes in it (a crash, SIGKILL) are orphans: they are removed, with
one line on stderr saying so.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TextIO

from m4bench.errors import M4BenchError
from m4bench.fileio import sweep_atomic_temps
from m4bench.sources.layout import SourceLayout

LEGACY_LOCK_NAME = ".lock"
"""The lock file inside a source's folder used by earlier versions."""

Notify = Callable[[str], None]


def lock_path(layout: SourceLayout) -> Path:
    """``sources/.<name>.lock``: the lock of the source at ``layout`` (beside the folder a
    symbolic link names, so two homes sharing one source share its lock)."""
    folder = layout.root.resolve()
    return folder.parent / f".{folder.name}.lock"


def to_stderr(message: str) -> None:
    """The default ``Notify``: one line on stderr."""
    print(message, file=sys.stderr, flush=True)


@contextlib.contextmanager
def source_lock(layout: SourceLayout, notify: Notify | None = None) -> Iterator[None]:
    """Hold the source's lock exclusively; fail at once if another process holds it.

    On entry, orphaned temporary files of atomic writes under the source's folder are
    removed, and ``notify`` (default: print to stderr) is told in one line.
    """
    with contextlib.ExitStack() as stack:
        stack.enter_context(_exclusive(lock_path(layout), layout.name, remove=True))
        legacy = layout.root / LEGACY_LOCK_NAME
        if legacy.is_file():
            stack.enter_context(_exclusive(legacy, layout.name, remove=False))
        swept = sweep_atomic_temps(layout.root)
        if swept.files:
            (notify or to_stderr)(swept.summary(f"source {layout.name!r} ({layout.root})"))
        yield


@contextlib.contextmanager
def _exclusive(path: Path, name: str, *, remove: bool) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    handle = _acquire(path, name)
    try:
        yield
    finally:
        if remove:  # while still held: a process that opened it meanwhile will retry
            path.unlink(missing_ok=True)
        fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
        handle.close()


def _acquire(path: Path, name: str) -> TextIO:
    """The open, locked lock file at ``path`` (a file still named so once locked)."""
    while True:
        handle = path.open("a")
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as exc:
            handle.close()
            raise M4BenchError(
                f"source {name!r} is being written by another m4bench process",
                hint="wait for it to finish, then run the command again",
            ) from exc
        if _still_named(handle, path):
            return handle
        handle.close()  # its holder removed it as it let go: lock the current one


def _still_named(handle: TextIO, path: Path) -> bool:
    try:
        named = path.stat()
    except FileNotFoundError:
        return False
    held = os.fstat(handle.fileno())
    return (held.st_dev, held.st_ino) == (named.st_dev, named.st_ino)
