"""Finding and checking the CSV files of a dataset release on disk.

MIMIC-IV trees (the credentialed release and the open demo) hold
``hosp/<table>.csv.gz`` and ``icu/<table>.csv.gz``; eICU-CRD trees hold
``<table>.csv.gz`` at the top. Plain ``.csv`` files are accepted too.
"""

from __future__ import annotations

import csv
import gzip
import io
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from m4bench.errors import M4BenchError
from m4bench.sources.schema.base import DatasetSchema, Table

# Where each official schema lives inside a release tree.
_SUBDIRS: dict[str, str] = {"mimiciv_hosp": "hosp", "mimiciv_icu": "icu", "eicu_crd": ""}
_SUFFIXES = (".csv.gz", ".csv")
_TREE_HINTS = {
    "mimic-iv": "point at the directory that holds hosp/ and icu/ (e.g. mimic-iv-3.1/)",
    "eicu": "point at the directory that holds patient.csv.gz, lab.csv.gz, ...",
}


@dataclass(frozen=True)
class CsvInput:
    """One table's input file and the column order of its header."""

    table: Table
    path: Path
    header: tuple[str, ...]

    @property
    def gzipped(self) -> bool:
        return self.path.name.endswith(".gz")


def expected_paths(root: Path, table: Table) -> tuple[Path, ...]:
    """The file names a table may have in a release tree, preferred first.

    Names are matched without regard to case: eICU releases name their files in
    camel case (``nurseCharting.csv.gz``).
    """
    folder = root / _SUBDIRS.get(table.schema_name, "")
    return tuple(folder / f"{table.name}{suffix}" for suffix in _SUFFIXES)


def existing_paths(root: Path, table: Table) -> list[Path]:
    """The files of ``table`` present in the tree (any letter case), preferred first."""
    found: list[Path] = []
    for wanted in expected_paths(root, table):
        if not wanted.parent.is_dir():
            continue
        found.extend(
            sorted(
                child
                for child in wanted.parent.iterdir()
                if child.name.lower() == wanted.name and child.is_file()
            )
        )
    return found


def select_tables(schema: DatasetSchema, names: Iterable[str] | None) -> tuple[Table, ...]:
    """Tables chosen by qualified or bare name (``None``: all), in schema order."""
    if names is None:
        return schema.tables
    wanted = set(names)
    chosen = tuple(t for t in schema.tables if t.qualified in wanted or t.name in wanted)
    known = {t.qualified for t in chosen} | {t.name for t in chosen}
    unknown = sorted(wanted - known)
    if unknown:
        raise M4BenchError(
            f"{schema.dataset} {schema.version} has no table(s) {', '.join(unknown)}",
            hint="see the table list with `m4bench data tables " + schema.dataset + "`",
        )
    return chosen


def locate_inputs(
    schema: DatasetSchema, root: Path, tables: Sequence[Table]
) -> tuple[CsvInput, ...]:
    """Find and header-check the file of every table; fail before any work is done."""
    _check_tree(schema, root)
    found: list[tuple[Table, Path]] = []
    missing: list[str] = []
    for table in tables:
        candidates = existing_paths(root, table)
        if len(candidates) > 1:
            raise M4BenchError(
                f"{table.qualified}: both {candidates[0]} and {candidates[1]} exist",
                hint="keep one of them so the input is unambiguous",
            )
        if not candidates:
            missing.append(str(expected_paths(root, table)[0]))
        else:
            found.append((table, candidates[0]))
    if missing:
        raise M4BenchError(
            f"{len(missing)} table file(s) missing from {root}: {', '.join(missing)}",
            hint="download the complete release, or ingest a subset with --table NAME",
        )
    return tuple(CsvInput(t, p, check_header(p, t)) for t, p in found)


def check_header(path: Path, table: Table) -> tuple[str, ...]:
    """The file's header if it has exactly the official columns (any order), else an error."""
    header = read_header(path)
    official = table.column_names
    missing = [name for name in official if name not in header]
    extra = [name for name in header if name not in official]
    duplicated = sorted({name for name in header if header.count(name) > 1})
    problems = []
    if missing:
        problems.append(f"missing column(s) {', '.join(missing)}")
    if extra:
        problems.append(f"unexpected column(s) {', '.join(extra)}")
    if duplicated:
        problems.append(f"repeated column(s) {', '.join(duplicated)}")
    if problems:
        raise M4BenchError(
            f"{path}: header does not match {table.qualified}: {'; '.join(problems)}",
            hint="the file must be the official release's table; expected columns: "
            + ", ".join(official),
        )
    return header


def read_header(path: Path) -> tuple[str, ...]:
    """The first CSV record of a ``.csv`` or ``.csv.gz`` file, lower-cased and trimmed."""
    try:
        raw = _open_text(path)
        with raw:
            first = next(csv.reader(raw), None)
    except (OSError, EOFError, zlib.error, UnicodeDecodeError) as exc:
        raise M4BenchError(
            f"{path}: cannot read the header line ({exc})",
            hint="the file is damaged or not a CSV; download it again",
        ) from exc
    if not first:
        raise M4BenchError(f"{path}: the file is empty", hint="download it again")
    return tuple(name.strip().lower() for name in first)


def _open_text(path: Path) -> io.TextIOWrapper:
    if path.name.endswith(".gz"):
        return io.TextIOWrapper(gzip.open(path, "rb"), encoding="utf-8", newline="")
    return path.open("r", encoding="utf-8", newline="")


def _check_tree(schema: DatasetSchema, root: Path) -> None:
    hint = _TREE_HINTS.get(schema.dataset, "point at the release's top directory")
    if not root.is_dir():
        raise M4BenchError(f"{root}: not a directory", hint=hint)
    if not any(existing_paths(root, table) for table in schema.tables):
        raise M4BenchError(
            f"{root}: no table file of the {schema.dataset} release found here",
            hint=hint,
        )
