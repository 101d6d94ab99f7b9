"""The workdir's size, watched while the command runs.

RLIMIT_FSIZE caps one file; nothing in an rlimit caps how many files a command writes,
and the workdir is a bind of a host directory (no tmpfs size applies). A thread walks
the workdir every few seconds (without following links), counting allocated bytes and
entries, and calls back once either passes the spec's limit; the sandbox then stops the
command. One more walk after the command ends catches a burst between two polls. Each
walk stops as soon as a limit is passed, so a flood of small files costs one bounded
walk.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

from m4bench.sandbox.spec import Limits

POLL_SECONDS = 2.0


def workdir_usage(root: Path, max_bytes: int | None, max_entries: int | None) -> str | None:
    """Which limit the tree under ``root`` passes (a sentence), or None."""
    size, entries = 0, 0
    stack = [str(root)]
    while stack:
        try:
            with os.scandir(stack.pop()) as listing:
                for entry in listing:
                    entries += 1
                    try:
                        info = entry.stat(follow_symlinks=False)
                    except OSError:
                        continue
                    size += info.st_blocks * 512
                    if entry.is_dir(follow_symlinks=False):
                        stack.append(entry.path)
                    if max_bytes is not None and size > max_bytes:
                        return f"the workdir passed its size limit of {max_bytes:,} bytes"
                    if max_entries is not None and entries > max_entries:
                        return f"the workdir passed its limit of {max_entries:,} entries"
        except OSError:
            continue
    return None


class WorkdirWatch:
    """A daemon thread calling ``on_exceeded`` once when the workdir passes a limit."""

    def __init__(
        self,
        workdir: Path,
        limits: Limits,
        on_exceeded: Callable[[], None],
        poll_seconds: float = POLL_SECONDS,
    ) -> None:
        self.workdir = workdir
        self.max_bytes = limits.workdir_bytes
        self.max_entries = limits.workdir_entries
        self.exceeded: str | None = None
        self._on_exceeded = on_exceeded
        self._poll = poll_seconds
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if self.max_bytes is None and self.max_entries is None:
            return
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """End the thread, then walk once more: a burst between two polls counts too."""
        self._stopping.set()
        thread = self._thread
        if thread is None:
            return
        if thread is not threading.current_thread():
            thread.join(timeout=30)
        self.check()

    def check(self) -> str | None:
        """Walk once; remember and return the limit passed, if any."""
        if self.exceeded is None:
            self.exceeded = workdir_usage(self.workdir, self.max_bytes, self.max_entries)
        return self.exceeded

    def _loop(self) -> None:
        wait = self._poll
        while not self._stopping.wait(wait):
            began = time.monotonic()
            if self.check() is not None:
                self._on_exceeded()
                return
            # A large tree is walked less often: at most a fifth of the time walking.
            wait = max(self._poll, 5 * (time.monotonic() - began))
