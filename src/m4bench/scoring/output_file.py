"""Looking at the agent's output file before any parsing: existence, size, header.

Nothing here raises on bad input: every problem becomes a ``Failure`` or a diagnostic.
"""

from __future__ import annotations

import codecs
import csv
import io
import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path

from m4bench.scoring.model import Failure
from m4bench.scoring.options import ScoreOptions

_COMPRESSED_MAGIC = {b"\x1f\x8b": "gzip", b"PK\x03\x04": "zip", b"\x28\xb5\x2f\xfd": "zstd"}
_UTF16_BOMS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)
# Bytes no text header holds: C0 controls other than tab and carriage return, and DEL.
_CONTROL = re.compile(rb"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_BINARY_MAGIC = {
    b"PAR1": "a Parquet file",
    b"\xd0\xcf\x11\xe0": "an Excel (OLE) file",
    b"SQLite format 3\x00": "an SQLite database",
}
_OTHER_DELIMITERS = (";", "\t", "|")


@dataclass
class OutputHeader:
    """Header names in file order; ``positions`` maps a name to its first column."""

    names: list[str]
    positions: dict[str, int]
    # Blank lines before the header (skipped, as a CSV reader skips blank lines).
    skip_lines: int = 0


@dataclass
class Inspection:
    size: int | None = None
    header: OutputHeader | None = None
    failure: Failure | None = None
    diagnostics: list[str] = field(default_factory=list)
    limits_hit: list[str] = field(default_factory=list)

    def fail(self, failure: Failure, message: str, limit: str | None = None) -> Inspection:
        self.failure = failure
        self.diagnostics.append(message)
        if limit:
            self.limits_hit.append(limit)
        return self


def inspect_output(path: Path, options: ScoreOptions) -> Inspection:
    """Check the file is a regular, bounded, uncompressed CSV and parse its header."""
    found = Inspection()
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return found.fail("output_missing", f"{path}: no output file was written")
    except OSError as exc:
        return found.fail("output_missing", f"{path}: output file cannot be read: {exc}")
    if stat.S_ISLNK(info.st_mode):
        return found.fail("output_not_a_file", f"{path}: output is a symbolic link; refused")
    if not stat.S_ISREG(info.st_mode):
        return found.fail("output_not_a_file", f"{path}: output is not a regular file")
    found.size = info.st_size
    if info.st_size == 0:
        return found.fail("output_empty", f"{path}: output file is empty (no header)")
    if info.st_size > options.max_output_bytes:
        return found.fail(
            "output_too_large",
            f"{path}: output is {info.st_size} bytes, over the limit of "
            f"{options.max_output_bytes} bytes; not read",
            "max_output_bytes",
        )
    try:
        with path.open("rb") as handle:
            prefix = handle.read(options.max_line_bytes + 4)
    except OSError as exc:
        return found.fail("output_missing", f"{path}: output file cannot be read: {exc}")
    return _read_header(path, prefix, options, found)


def _read_header(path: Path, prefix: bytes, options: ScoreOptions, found: Inspection) -> Inspection:
    for magic, kind in _COMPRESSED_MAGIC.items():
        if prefix.startswith(magic):
            return found.fail(
                "output_compressed", f"{path}: output is {kind}-compressed; write plain CSV"
            )
    if prefix.startswith(_UTF16_BOMS):
        return found.fail("header_unreadable", f"{path}: output is UTF-16 encoded; write UTF-8 CSV")
    skipped, prefix, mixed = _skip_blank_lines(prefix)
    if not prefix.strip(b" \t\r\n"):
        return found.fail("header_unreadable", f"{path}: output holds only blank lines; no header")
    if mixed:
        return found.fail(
            "header_unreadable",
            f"{path}: the blank lines before the header mix line breaks (LF and CR LF), "
            "so the header cannot be found reliably; remove them",
        )
    # A header never holds a control byte (NUL, ^A, ...); a binary file almost always
    # does in its first "line". (One inside a data cell is that cell's problem only.)
    end = prefix.find(b"\n")
    control = _CONTROL.search(prefix if end < 0 else prefix[:end])
    if control is not None:
        kind = next((name for magic, name in _BINARY_MAGIC.items() if prefix.startswith(magic)), "")
        return found.fail(
            "output_unreadable",
            f"{path}: output is {kind or 'binary'}, not text (control byte "
            f"0x{control.group()[0]:02x} at offset {control.start()}); write a UTF-8 CSV",
        )
    if prefix.startswith(codecs.BOM_UTF8):
        prefix = prefix[len(codecs.BOM_UTF8) :]
        found.diagnostics.append("output starts with a UTF-8 byte order mark (ignored)")
    text = prefix.decode("utf-8", errors="replace").replace("\x00", "\ufffd")
    buffer = io.StringIO(text, newline="")
    try:
        names = next(csv.reader(buffer, strict=False))
    except (csv.Error, StopIteration) as exc:
        return found.fail("header_unreadable", f"{path}: header line cannot be parsed: {exc}")
    if buffer.tell() >= len(text) and len(prefix) > options.max_line_bytes:
        return found.fail(
            "header_unreadable",
            f"{path}: header line is longer than {options.max_line_bytes} bytes",
            "max_line_bytes",
        )
    if not any(name.strip() for name in names):
        return found.fail(
            "header_unreadable", f"{path}: header line names no column; the header must come first"
        )
    if len(names) > options.max_columns:
        return found.fail(
            "too_many_columns",
            f"{path}: header has {len(names)} columns, over the limit of "
            f"{options.max_columns}; not read",
            "max_columns",
        )
    found.header = _header(names, found.diagnostics)
    if skipped:
        found.header.skip_lines = skipped
        found.diagnostics.append(f"{skipped} blank line(s) before the header (skipped)")
    return found


def _skip_blank_lines(prefix: bytes) -> tuple[int, bytes, bool]:
    """Lines holding only white space before the header, the bytes after them, and
    whether those lines and the header line end in different line breaks (a reader
    told to skip them could then miscount)."""
    skipped, endings = 0, set()
    while True:
        end = prefix.find(b"\n")
        if end < 0 or prefix[:end].strip(b" \t\r"):
            if skipped and end >= 0:
                endings.add(prefix[:end].endswith(b"\r"))
            return skipped, prefix, len(endings) > 1
        endings.add(prefix[:end].endswith(b"\r"))
        skipped, prefix = skipped + 1, prefix[end + 1 :]


def _header(names: list[str], diagnostics: list[str]) -> OutputHeader:
    positions: dict[str, int] = {}
    duplicated: list[str] = []
    for index, name in enumerate(names):
        if name in positions:
            duplicated.append(name)
        else:
            positions[name] = index
    if duplicated:
        diagnostics.append(
            f"header repeats column names {sorted(set(duplicated))}; the first of each is used"
        )
    if len(names) == 1:
        for delimiter in _OTHER_DELIMITERS:
            if delimiter in names[0]:
                diagnostics.append(
                    f"header has a single column containing {delimiter!r}: the file looks "
                    "delimited by it, but only comma-separated output is read"
                )
                break
    return OutputHeader(names=names, positions=positions)


def near_misses(wanted: list[str], header: OutputHeader) -> list[str]:
    """Diagnostics for wanted columns that are absent but present up to case/spaces."""
    loose = {name.strip().lower(): name for name in header.names}
    notes = []
    for name in wanted:
        if name in header.positions:
            continue
        close = loose.get(name.strip().lower())
        if close is not None:
            notes.append(f"column {name!r} is missing; the header has {close!r} (names are exact)")
    return notes
