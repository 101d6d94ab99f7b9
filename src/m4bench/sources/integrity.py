"""One streaming pass over an input file: its SHA-256 and, for gzip, a full integrity check.

DuckDB stops quietly at the end of a gzip file cut at a block boundary, so a truncated
download could be ingested short. Inflating the stream here (zlib releases the GIL,
so this runs beside the DuckDB scan) proves the file is complete: every member ends
with its trailer and nothing follows but further members.
"""

from __future__ import annotations

import hashlib
import threading
import zlib
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

from m4bench.errors import M4BenchError

_CHUNK = 4 << 20
_DRAIN = 1 << 20  # cap on inflated bytes held at once


class Stopped(Exception):
    """The caller asked the digest to stop early (its result is no longer wanted)."""


def digest_file(path: Path, verify_gzip: bool, stop: threading.Event | None = None) -> str:
    """Hex SHA-256 of the file's bytes; with ``verify_gzip``, also inflate and check it.

    Setting ``stop`` from another thread ends the pass early with :class:`Stopped`.
    """
    digest = hashlib.sha256()
    inflater = _GzipChecker(path) if verify_gzip else None
    with path.open("rb") as handle:
        while chunk := handle.read(_CHUNK):
            if stop is not None and stop.is_set():
                raise Stopped(str(path))
            digest.update(chunk)
            if inflater is not None:
                inflater.feed(chunk)
    if inflater is not None:
        inflater.finish()
    return digest.hexdigest()


def digest_in_background(
    pool: ThreadPoolExecutor, path: Path, verify_gzip: bool, stop: threading.Event
) -> Future[str]:
    """Start :func:`digest_file` on ``pool``; the caller collects it with ``result()``."""
    return pool.submit(digest_file, path, verify_gzip, stop)


class _GzipChecker:
    """Inflates concatenated gzip members, discarding output, and checks they are whole."""

    def __init__(self, path: Path) -> None:
        self._path = path
        self._inflater = zlib.decompressobj(wbits=31)
        self._seen_data = False

    def feed(self, data: bytes) -> None:
        while data:
            try:
                self._inflater.decompress(data, _DRAIN)
                while self._inflater.unconsumed_tail and not self._inflater.eof:
                    self._inflater.decompress(self._inflater.unconsumed_tail, _DRAIN)
            except zlib.error as exc:
                raise self._damaged(f"gzip data is corrupt ({exc})") from exc
            self._seen_data = True
            if not self._inflater.eof:
                return
            # A member ended: what follows is another member (or padding).
            data = self._inflater.unused_data
            self._inflater = zlib.decompressobj(wbits=31)
            if data.strip(b"\x00"):
                continue
            self._seen_data = False
            return

    def finish(self) -> None:
        if self._seen_data and not self._inflater.eof:
            raise self._damaged("the gzip stream ends early (truncated file)")

    def _damaged(self, what: str) -> M4BenchError:
        return M4BenchError(
            f"{self._path}: {what}",
            hint="the download is incomplete or damaged; download this file again",
        )
