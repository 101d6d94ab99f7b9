"""Whether a source's Parquet files are whole, before anything reads them.

A file cut short (a full disk, a copy stopped half way) loses its footer: DuckDB then
fails inside whatever query reads it first, and the failure looks like that query's
(a concept's SQL, a task's reference, an agent's query). Checking the file's frame
first (the ``PAR1`` magic bytes at both ends and a footer that fits in the file; a few
bytes read per file) turns it into one infrastructure error naming the file, with the
way to re-create it. A file damaged inside its data pages keeps its frame: a query
that fails on it is named through :func:`damaged_file_error`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from m4bench.errors import M4BenchError
from m4bench.sources.layout import Source

MAGIC = b"PAR1"
_FRAME = len(MAGIC) + 4 + len(MAGIC)  # leading magic, footer length, trailing magic
_NAMED_FILE = re.compile(r"""['"]?([^'"\s]+\.parquet)['"]?""")


def parquet_problem(path: Path) -> str | None:
    """Why ``path`` is no whole Parquet file (None when its frame is sound)."""
    try:
        with path.open("rb") as handle:
            size = handle.seek(0, 2)
            if size < _FRAME:
                return f"too short to be a Parquet file ({size} bytes)"
            handle.seek(0)
            head = handle.read(len(MAGIC))
            handle.seek(size - 8)
            tail = handle.read(8)
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})"
    if head != MAGIC:
        return "does not start with the Parquet magic bytes"
    if tail[4:] != MAGIC:
        return f"does not end with the Parquet magic bytes: cut short? ({size} bytes)"
    footer = int.from_bytes(tail[:4], "little")
    if footer > size - _FRAME:
        return f"its footer claims {footer} bytes, more than the file holds ({size} bytes)"
    return None


def recreate_hint(source: Source | None) -> str:
    """How to get whole files back, for the kind of source they belong to."""
    if source is None:
        return "re-create the source the file belongs to (`m4bench data synth` or `ingest`)"
    name = source.name
    if source.manifest.kind == "synthetic":
        how = f"`m4bench data synth {source.manifest.dataset} --name {name} --force`"
    elif source.manifest.kind == "ingested":
        how = f"`m4bench data ingest {source.manifest.dataset} PATH --name {name}`"
    else:
        how = "`m4bench data attach-m4` again over an intact database"
    return (
        f"the file is damaged: re-create source {name!r} ({how}); a damaged concept table "
        "under mimiciv_derived is rebuilt by deleting it and running `m4bench concepts build`"
    )


def damaged(path: Path, problem: str, source: Source | None) -> M4BenchError:
    return M4BenchError(f"{path}: {problem}", hint=recreate_hint(source))


def check_parquet_files(paths: Iterable[Path], source: Source | None = None) -> None:
    """Raise an :class:`M4BenchError` naming the first of ``paths`` that is not whole."""
    for path in paths:
        problem = parquet_problem(path)
        if problem is not None:
            raise damaged(path, problem, source)


def source_parquet_files(source: Source) -> list[Path]:
    """Every Parquet file in the source's folder (its tables and built concepts)."""
    folder = source.layout.parquet_dir
    return sorted(folder.rglob("*.parquet")) if folder.is_dir() else []


def check_source(source: Source) -> None:
    """Check the frame of every Parquet file of ``source`` (a few bytes read of each)."""
    check_parquet_files(source_parquet_files(source), source)


def damaged_file_error(exc: Exception, source: Source | None = None) -> M4BenchError | None:
    """The infrastructure error for a DuckDB failure that names a Parquet file whose frame
    is broken, or that DuckDB itself called no valid Parquet file; None for any other."""
    message = str(exc)
    for match in _NAMED_FILE.finditer(message):
        path = Path(match.group(1))
        if source is not None and not path.is_absolute():
            path = source.layout.root / path
        problem = parquet_problem(path) if path.exists() else None
        if problem is None and _reads_as_damage(message):
            problem = f"DuckDB cannot read it: {message.splitlines()[0]}"
        if problem is not None:
            return damaged(path, problem, source)
    return None


def _reads_as_damage(message: str) -> bool:
    lowered = message.lower()
    return any(
        words in lowered
        for words in ("magic bytes", "not a parquet file", "corrupt", "invalid parquet")
    )
