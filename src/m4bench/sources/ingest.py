"""Ingest of a real MIMIC-IV or eICU-CRD release (or its open demo) into a source.

Each table is streamed by DuckDB from its CSV file, with the official types, straight
into a zstd Parquet file written beside its final name and renamed into place when
complete; the manifest is saved after every table. A table whose input checksum
matches the manifest is skipped, so an interrupted ingest resumes where it stopped
and a repeated one does nothing.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import duckdb

from m4bench.errors import M4BenchError
from m4bench.fileio import atomic_path, read_model, write_model
from m4bench.home import DataHome
from m4bench.sources.csv_sql import NULL_TOKENS, explain_csv_error, read_csv_sql
from m4bench.sources.csv_tree import CsvInput, locate_inputs, select_tables
from m4bench.sources.integrity import Stopped, digest_file, digest_in_background
from m4bench.sources.layout import (
    Source,
    SourceLayout,
    SourceManifest,
    record_table,
    write_catalog,
)
from m4bench.sources.lock import source_lock
from m4bench.sources.names import check_source_name
from m4bench.sources.schema import dataset_schema
from m4bench.sql import quote_literal

ProgressCallback = Callable[[str, float], None]
"""Called with (qualified table, fraction done in [0, 1]) while a table is read."""

_POLL_SECONDS = 0.2
_DAMAGE_WAIT_SECONDS = 20.0
ROW_GROUP_SIZE = 122_880


@dataclass(frozen=True)
class TableOutcome:
    qualified: str
    status: Literal["ingested", "skipped"]
    rows: int
    input_bytes: int
    seconds: float


@dataclass(frozen=True)
class IngestReport:
    source: Source
    tables: tuple[TableOutcome, ...]


def default_source_name(dataset: str, root: Path) -> str:
    """A source name from the release directory: 'mimic-iv-3.1', 'eicu-crd-demo-2.0.1', ...

    A directory named only by its version, as PhysioNet downloads are
    (``physionet.org/files/mimic-iv-demo/2.2``), is named with its parent; a name
    without the dataset in it gets the dataset as a prefix.
    """
    resolved = root.resolve()
    raw = resolved.name
    if re.fullmatch(r"[0-9][0-9.]*", raw) and resolved.parent.name:
        raw = f"{resolved.parent.name}-{raw}"
    name = re.sub(r"[^a-z0-9._-]+", "-", raw.lower()).strip("-._")
    if dataset.split("-", 1)[0] not in name:
        name = f"{dataset}-{name}" if name else dataset
    return name[:64]


def ingest_dataset(
    home: DataHome,
    dataset: str,
    root: Path,
    name: str | None = None,
    tables: Iterable[str] | None = None,
    public: bool = False,
    progress: ProgressCallback | None = None,
) -> IngestReport:
    """Ingest the CSV tree at ``root`` as source ``name``; see the module docstring.

    ``tables`` restricts the ingest to some tables (qualified or bare names).
    ``public`` marks open data (the demo releases) whose outputs may leave the machine.
    Every file is found and header-checked before any table is written.
    """
    schema = dataset_schema(dataset)
    root = root.expanduser().resolve()
    source_name = check_source_name(name or default_source_name(dataset, root))
    inputs = locate_inputs(schema, root, select_tables(schema, tables))
    layout = SourceLayout(home.source_dir(source_name))
    with source_lock(layout):
        manifest = _open_manifest(layout, dataset, schema.version, source_name, root, public)
        outcomes: list[TableOutcome] = []
        changed = False
        try:
            for source_input in sorted(inputs, key=lambda i: (i.path.stat().st_size, i.path.name)):
                outcome = _ingest_table(layout, manifest, source_input, dataset, progress)
                changed |= outcome.status == "ingested"
                outcomes.append(outcome)
        finally:
            if manifest.tables and (changed or not layout.catalog_path.exists()):
                write_catalog(layout, manifest)
    return IngestReport(Source(layout, manifest), tuple(outcomes))


def _open_manifest(
    layout: SourceLayout, dataset: str, version: str, name: str, root: Path, public: bool
) -> SourceManifest:
    if layout.manifest_path.exists():
        manifest = read_model(layout.manifest_path, SourceManifest)
        if manifest.kind != "ingested" or manifest.dataset != dataset:
            raise M4BenchError(
                f"source {name!r} already exists as a {manifest.kind} {manifest.dataset} source",
                hint=f"choose another name with --name, or delete {layout.root} to replace it",
            )
        if manifest.parameters.get("input_root") != str(root) or manifest.public != public:
            manifest.parameters["input_root"] = str(root)
            manifest.public = public
            write_model(layout.manifest_path, manifest)
        return manifest
    return SourceManifest(
        name=name,
        dataset=dataset,
        dataset_version=version,
        kind="ingested",
        public=public,
        parameters={"input_root": str(root)},
    )


def _ingest_table(
    layout: SourceLayout,
    manifest: SourceManifest,
    source_input: CsvInput,
    dataset: str,
    progress: ProgressCallback | None,
) -> TableOutcome:
    table = source_input.table
    started = time.perf_counter()
    size = source_input.path.stat().st_size
    target = layout.table_path(table.schema_name, table.name)
    known = manifest.tables.get(table.qualified)
    if known is not None and _unchanged(known.input_sha256, known.file.bytes, target, source_input):
        if progress:
            progress(table.qualified, 1.0)
        return TableOutcome(table.qualified, "skipped", known.rows, size, 0.0)
    query = read_csv_sql(source_input, NULL_TOKENS[dataset])
    rows, digest = _copy_to_parquet(source_input, query, target, progress)
    record_table(layout, manifest, table.qualified, rows, input_sha256=digest)
    elapsed = time.perf_counter() - started
    return TableOutcome(table.qualified, "ingested", rows, size, elapsed)


def _unchanged(
    input_sha256: str | None, recorded_bytes: int, target: Path, source_input: CsvInput
) -> bool:
    """The table file is in place and the input's content hash matches the manifest."""
    if not input_sha256 or not target.is_file() or target.stat().st_size != recorded_bytes:
        return False
    return digest_file(source_input.path, verify_gzip=False) == input_sha256


def _copy_to_parquet(
    source_input: CsvInput, query: str, target: Path, progress: ProgressCallback | None
) -> tuple[int, str]:
    """Stream ``query`` into ``target`` while the input is hashed (and gzip-checked)."""
    # Any spill goes beside the output, never into the working directory.
    con = duckdb.connect(config={"temp_directory": str(target.parent / ".duckdb-spill")})
    # Progress is tracked (for query_progress) but never printed by DuckDB itself.
    con.execute("SET enable_progress_bar = true")
    con.execute("SET enable_progress_bar_print = false")
    options = (
        f"(FORMAT PARQUET, COMPRESSION ZSTD, ROW_GROUP_SIZE {ROW_GROUP_SIZE}, USE_TMP_FILE false)"
    )
    stop = threading.Event()
    try:
        with atomic_path(target) as tmp, ThreadPoolExecutor(max_workers=2) as pool:
            digest = digest_in_background(pool, source_input.path, source_input.gzipped, stop)
            copy = pool.submit(con.execute, f"COPY ({query}) TO {quote_literal(tmp)} {options}")
            try:
                _report_progress(con, copy, source_input.table.qualified, progress)
                copy.result()
            except duckdb.Error as exc:
                _raise_damage_first(digest, stop, exc)
                raise explain_csv_error(source_input.path, exc) from exc
            except BaseException:
                stop.set()
                con.interrupt()
                raise
            input_digest = digest.result()
            counted = con.execute(
                f"SELECT COUNT(*) FROM read_parquet({quote_literal(tmp)})"
            ).fetchone()
    finally:
        con.close()
    return (int(counted[0]) if counted else 0), input_digest


def _raise_damage_first(digest: Future[str], stop: threading.Event, exc: duckdb.Error) -> None:
    """A damaged gzip explains a parse error better than the parse error does.

    A truncated file fails near its end, where the digest pass also is; an early
    parse error does not wait for a pass over the whole file.
    """
    try:
        digest.result(timeout=_DAMAGE_WAIT_SECONDS)
    except M4BenchError as damage:
        raise damage from exc
    except (TimeoutError, Stopped):
        stop.set()


def _report_progress(
    con: duckdb.DuckDBPyConnection,
    job: Future[duckdb.DuckDBPyConnection],
    qualified: str,
    progress: ProgressCallback | None,
) -> None:
    if progress is None:
        job.exception()
        return
    progress(qualified, 0.0)
    done = threading.Event()
    job.add_done_callback(lambda _: done.set())
    while not done.wait(_POLL_SECONDS):
        percent = con.query_progress()
        if percent >= 0:
            progress(qualified, min(percent, 100.0) / 100.0)
    progress(qualified, 1.0)
