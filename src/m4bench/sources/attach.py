"""Register a DuckDB database built by the M4 toolkit as a source, without copying.

M4 builds ``mimic_iv.duckdb`` (and ``eicu.duckdb``) as views over Parquet files, one
per table, in the official schema names. Attaching reads each view's definition,
finds the Parquet file(s) it scans, checks the columns against the official schema,
and records those files (absolute paths, SHA-256, size, rows) in a manifest. The
files stay where they are; the catalog's views point at them. Column types are the
ones M4 inferred when it built the files (e.g. BIGINT for integers).
"""

from __future__ import annotations

import glob
import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import duckdb

from m4bench.errors import M4BenchError
from m4bench.fileio import read_model, sha256_file, write_model
from m4bench.home import DataHome
from m4bench.sources.layout import (
    FileEntry,
    Source,
    SourceLayout,
    SourceManifest,
    TableEntry,
    write_catalog,
)
from m4bench.sources.lock import source_lock
from m4bench.sources.names import check_source_name
from m4bench.sources.schema import EICU, MIMIC_IV
from m4bench.sources.schema.base import DatasetSchema, Table
from m4bench.sql import quote_literal

_QUOTED = re.compile(r"'((?:[^']|'')*)'|\"((?:[^\"]|\"\")*)\"")
_GLOB_CHARS = re.compile(r"[*?\[]")

AttachProgress = Callable[[str, int, int], None]
"""Called with (qualified table, index, total) as each table is hashed."""


@dataclass(frozen=True)
class AttachReport:
    source: Source
    missing_tables: tuple[str, ...]


def attach_m4(
    home: DataHome,
    database: Path,
    name: str | None = None,
    public: bool = False,
    progress: AttachProgress | None = None,
) -> AttachReport:
    """Register the M4 database at ``database`` as source ``name`` (see module docstring)."""
    database = database.expanduser().resolve()
    views = _read_views(database)
    schema = _detect_dataset(database, views)
    source_name = check_source_name(name or f"{schema.dataset}-m4")
    layout = SourceLayout(home.source_dir(source_name))
    _refuse_other_kind(layout, source_name)
    with source_lock(layout):
        return _attach(layout, database, views, schema, source_name, public, progress)


def _attach(
    layout: SourceLayout,
    database: Path,
    views: dict[str, str],
    schema: DatasetSchema,
    source_name: str,
    public: bool,
    progress: AttachProgress | None,
) -> AttachReport:
    manifest = SourceManifest(
        name=source_name,
        dataset="eicu" if schema is EICU else "mimic-iv",
        dataset_version=schema.version,
        kind="attached-m4",
        public=public,
        parameters={"m4_database": str(database), "column_types": "as built by M4"},
    )
    present = [t for t in schema.tables if t.qualified in views]
    for index, table in enumerate(present):
        if progress:
            progress(table.qualified, index, len(present))
        files = _scanned_files(database, table, views[table.qualified])
        manifest.tables[table.qualified] = _table_entry(table, files)
    write_model(layout.manifest_path, manifest)
    write_catalog(layout, manifest)
    missing = tuple(t.qualified for t in schema.tables if t.qualified not in views)
    return AttachReport(Source(layout, manifest), missing)


def _read_views(database: Path) -> dict[str, str]:
    """``{schema.view: defining SQL}`` of every view in the database."""
    if not database.is_file():
        raise M4BenchError(
            f"{database}: no such file",
            hint="point at the M4 database, e.g. m4_data/databases/mimic_iv.duckdb",
        )
    try:
        con = duckdb.connect(str(database), read_only=True)
    except duckdb.Error as exc:
        raise M4BenchError(
            f"{database}: not a readable DuckDB database ({str(exc).splitlines()[0]})",
            hint="point at the .duckdb file the M4 toolkit built",
        ) from exc
    try:
        rows = con.execute(
            "SELECT schema_name, view_name, sql FROM duckdb_views() WHERE NOT internal"
        ).fetchall()
    finally:
        con.close()
    return {f"{schema}.{view}": str(sql) for schema, view, sql in rows}


def _detect_dataset(database: Path, views: dict[str, str]) -> DatasetSchema:
    best = max((MIMIC_IV, EICU), key=lambda s: sum(t.qualified in views for t in s.tables))
    if not any(t.qualified in views for t in best.tables):
        raise M4BenchError(
            f"{database}: no views named like mimiciv_hosp.*, mimiciv_icu.* or eicu_crd.*",
            hint="this is not a database built by the M4 toolkit; "
            "to use CSV files, run `m4bench data ingest`",
        )
    return best


def _refuse_other_kind(layout: SourceLayout, name: str) -> None:
    if layout.manifest_path.exists():
        existing = read_model(layout.manifest_path, SourceManifest)
        if existing.kind != "attached-m4":
            raise M4BenchError(
                f"source {name!r} already exists as a {existing.kind} source",
                hint=f"choose another name with --name, or delete {layout.root}",
            )


def _scanned_files(database: Path, table: Table, view_sql: str) -> tuple[str, list[Path]]:
    """The Parquet path (or glob) a view scans, and the files it matches.

    Both ``read_parquet('x.parquet')`` and DuckDB's ``FROM 'x.parquet'`` (stored as
    ``FROM "x.parquet"``) are followed: the path is the view's one quoted string
    naming a Parquet file.
    """
    quoted = {
        single.replace("''", "'") if single else double.replace('""', '"')
        for single, double in _QUOTED.findall(view_sql)
    }
    paths = sorted(q for q in quoted if ".parquet" in q.lower())
    if not paths:
        raise M4BenchError(
            f"{database}: view {table.qualified} does not read a Parquet file",
            hint="only M4 databases of views over Parquet can be attached",
        )
    if len(paths) > 1:
        raise M4BenchError(
            f"{database}: view {table.qualified} reads {len(paths)} Parquet paths; "
            "expected one file or one glob",
            hint="rebuild the M4 database, or ingest the CSV files instead",
        )
    pattern = _resolve(database, paths[0])
    files = sorted(Path(p) for p in glob.glob(pattern, recursive=True))
    if not files:
        raise M4BenchError(
            f"{database}: view {table.qualified} reads {paths[0]}, which does not exist",
            hint="the Parquet files moved or were deleted; rebuild the M4 database",
        )
    return pattern, files


def _resolve(database: Path, raw: str) -> str:
    """An absolute path for ``raw``: as is, else relative to the database or its parents."""
    path = Path(raw)
    if path.is_absolute():
        return raw
    for base in (Path.cwd(), *list(database.parents)[:4]):
        candidate = str(base / path)
        if glob.glob(candidate, recursive=True):
            return candidate
    return str(database.parent / path)


def _table_entry(table: Table, scanned: tuple[str, list[Path]]) -> TableEntry:
    pattern, files = scanned
    con = duckdb.connect()
    try:
        scan = f"read_parquet({quote_literal(pattern)})"
        names = [row[0] for row in con.execute(f"DESCRIBE SELECT * FROM {scan}").fetchall()]
        _check_columns(table, pattern, [str(n).lower() for n in names])
        counted = con.execute(f"SELECT COUNT(*) FROM {scan}").fetchone()
    finally:
        con.close()
    if len(files) == 1 and not _GLOB_CHARS.search(pattern):
        digest = sha256_file(files[0])
    else:
        combined = hashlib.sha256()
        for file in files:
            combined.update(f"{file.name}={sha256_file(file)}\n".encode())
        digest = combined.hexdigest()
    entry = FileEntry(path=pattern, sha256=digest, bytes=sum(f.stat().st_size for f in files))
    return TableEntry(rows=int(counted[0]) if counted else 0, file=entry)


def _check_columns(table: Table, pattern: str, names: list[str]) -> None:
    missing = [c for c in table.column_names if c not in names]
    extra = [c for c in names if c not in table.column_names]
    if missing or extra:
        raise M4BenchError(
            f"{pattern}: columns do not match {table.qualified}"
            + (f"; missing {', '.join(missing)}" if missing else "")
            + (f"; unexpected {', '.join(extra)}" if extra else ""),
            hint="the M4 database was built from another release; rebuild it from MIMIC-IV "
            "v3.1 / eICU-CRD v2.0",
        )
