"""On-disk layout of a source and its manifest.

A source ``NAME`` lives in ``$M4BENCH_HOME/sources/NAME/``::

    parquet/<schema>/<table>.parquet   one zstd Parquet file per table
    catalog.duckdb                     views named as the official schemas
    source.json                        the manifest (SourceManifest)

Writers put each table in place atomically and rewrite the manifest after every
table, so an interrupted build keeps every table it finished.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import duckdb
from pydantic import BaseModel, Field

from m4bench import __version__
from m4bench.errors import M4BenchError
from m4bench.fileio import atomic_path, make_private, read_model, sha256_file, write_model
from m4bench.home import DataHome
from m4bench.sources.datasets import Dataset
from m4bench.sql import create_parquet_views, quote_literal

MANIFEST_VERSION = 1
SourceKind = Literal["synthetic", "ingested", "attached-m4"]


class FileEntry(BaseModel):
    """One data file, path relative to the source directory (or absolute when attached)."""

    path: str
    sha256: str
    bytes: int


class TableEntry(BaseModel):
    rows: int
    file: FileEntry
    input_sha256: str | None = Field(
        default=None, description="hash of what the table was built from (ingest resume)"
    )


class SourceManifest(BaseModel):
    format_version: int = MANIFEST_VERSION
    name: str
    dataset: Dataset
    dataset_version: str
    kind: SourceKind
    public: bool = Field(description="synthetic or open-demo data: outputs may leave the machine")
    parameters: dict[str, str | int | float | bool | None] = Field(default_factory=dict)
    m4bench_version: str = __version__
    tables: dict[str, TableEntry] = Field(default_factory=dict)

    def fingerprint(self) -> str:
        """A hash of every table's content hash: identifies the data without re-reading it."""
        digest = hashlib.sha256()
        for qualified in sorted(self.tables):
            digest.update(f"{qualified}={self.tables[qualified].file.sha256}\n".encode())
        return digest.hexdigest()


@dataclass(frozen=True)
class SourceLayout:
    """Paths of one source directory."""

    root: Path

    @property
    def name(self) -> str:
        return self.root.name

    @property
    def parquet_dir(self) -> Path:
        return self.root / "parquet"

    @property
    def catalog_path(self) -> Path:
        return self.root / "catalog.duckdb"

    @property
    def manifest_path(self) -> Path:
        return self.root / "source.json"

    def table_path(self, schema_name: str, table: str) -> Path:
        return self.parquet_dir / schema_name / f"{table}.parquet"

    def resolve(self, entry: FileEntry) -> Path:
        path = Path(entry.path)
        return path if path.is_absolute() else self.root / path


@dataclass(frozen=True)
class Source:
    """A built source: its layout and validated manifest."""

    layout: SourceLayout
    manifest: SourceManifest

    @property
    def name(self) -> str:
        return self.manifest.name

    def table_file(self, qualified: str) -> Path:
        try:
            return self.layout.resolve(self.manifest.tables[qualified].file)
        except KeyError as exc:
            raise M4BenchError(
                f"source {self.name!r} has no table {qualified!r}",
                hint=f"see `m4bench data info {self.name}` for its tables",
            ) from exc

    def connect(self, read_only: bool = True) -> duckdb.DuckDBPyConnection:
        """A connection to the source catalog (views over the Parquet files, found in the
        source's folder wherever the data home now is)."""
        if not self.layout.catalog_path.exists():
            write_catalog(self.layout, self.manifest)
        con = duckdb.connect(str(self.layout.catalog_path), read_only=read_only)
        _search_source_folder(con, self.layout)
        return con


def load_source(home: DataHome, name: str) -> Source:
    layout = SourceLayout(home.source_dir(name))
    if not layout.manifest_path.exists():
        known = ", ".join(list_source_names(home)) or "none"
        raise M4BenchError(
            f"no source named {name!r} in {home.sources} (known: {known})",
            hint="build one with `m4bench data synth mimic-iv` or `m4bench data synth eicu` "
            f"(add `--name {name}` for this name), or bring real data with "
            "`m4bench data ingest ...`",
        )
    return Source(layout, read_model(layout.manifest_path, SourceManifest))


def list_source_names(home: DataHome) -> list[str]:
    if not home.sources.exists():
        return []
    return sorted(
        child.name for child in home.sources.iterdir() if (child / "source.json").exists()
    )


def write_parquet(
    con: duckdb.DuckDBPyConnection, query: str, target: Path, row_group_size: int = 122_880
) -> int:
    """Write the result of ``query`` to ``target`` as zstd Parquet, atomically; return rows.

    DuckDB's own temporary file is turned off (``USE_TMP_FILE false``): our temp path
    already makes the write atomic, and DuckDB leaves its ``tmp_`` file behind when a
    COPY fails.
    """
    with atomic_path(target) as tmp:
        con.execute(
            f"COPY ({query}) TO {quote_literal(tmp)} "
            f"(FORMAT PARQUET, COMPRESSION ZSTD, ROW_GROUP_SIZE {row_group_size}, "
            "USE_TMP_FILE false)"
        )
        count = con.execute(f"SELECT COUNT(*) FROM read_parquet({quote_literal(tmp)})").fetchone()
    return int(count[0]) if count else 0


def record_table(
    layout: SourceLayout,
    manifest: SourceManifest,
    qualified: str,
    rows: int,
    input_sha256: str | None = None,
) -> None:
    """Hash a finished table file, add it to the manifest and save the manifest."""
    schema_name, table = qualified.split(".", 1)
    path = layout.table_path(schema_name, table)
    entry = FileEntry(
        path=str(path.relative_to(layout.root)),
        sha256=sha256_file(path),
        bytes=path.stat().st_size,
    )
    manifest.tables[qualified] = TableEntry(rows=rows, file=entry, input_sha256=input_sha256)
    write_model(layout.manifest_path, manifest)


def write_catalog(
    layout: SourceLayout, manifest: SourceManifest, extra: Iterable[tuple[str, Path]] = ()
) -> None:
    """(Re)write ``catalog.duckdb``: one view per table, named as the official schema.

    ``extra`` adds ``(qualified name, parquet path)`` views beyond the manifest's tables
    (the derived concept tables). The catalog is rebuilt from scratch and swapped in
    atomically. Files inside the source's folder are named relative to it, so a copied
    or moved data home reads its own files: open the catalog with ``Source.connect()``,
    or from the source's folder.
    """
    views = [(q, layout.resolve(e.file)) for q, e in sorted(manifest.tables.items())]
    views.extend(extra)
    make_private(layout.root)  # the rows of the source are the harness user's alone
    with atomic_path(layout.catalog_path) as tmp:
        tmp.unlink()
        con = duckdb.connect(str(tmp))
        try:
            _search_source_folder(con, layout)
            create_parquet_views(con, ((q, _view_path(layout, path)) for q, path in views))
            con.execute("CHECKPOINT")
        finally:
            con.close()


def _view_path(layout: SourceLayout, path: Path) -> Path:
    """``path`` as a catalog view reads it: relative to the source's folder when inside
    it (and the folder's path has no comma, which would split DuckDB's search path)."""
    resolved, root = path.resolve(), layout.root.resolve()
    if "," not in str(root) and resolved.is_relative_to(root):
        return resolved.relative_to(root)
    return resolved


def _search_source_folder(con: duckdb.DuckDBPyConnection, layout: SourceLayout) -> None:
    """Resolve the catalog's relative file paths in the source's folder."""
    con.execute(f"SET file_search_path = {quote_literal(layout.root.resolve())}")
