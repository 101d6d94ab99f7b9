"""One writer per source: an exclusive lock held while a source is being built."""

from __future__ import annotations

import contextlib
import fcntl
from collections.abc import Iterator

from m4bench.errors import M4BenchError
from m4bench.sources.layout import SourceLayout

LOCK_NAME = ".lock"


@contextlib.contextmanager
def source_lock(layout: SourceLayout) -> Iterator[None]:
    """Hold ``<source>/.lock`` exclusively; fail at once if another process holds it."""
    layout.root.mkdir(parents=True, exist_ok=True)
    with (layout.root / LOCK_NAME).open("a") as handle:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as exc:
            raise M4BenchError(
                f"source {layout.name!r} is being written by another m4bench process",
                hint="wait for it to finish, then run the command again",
            ) from exc
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
