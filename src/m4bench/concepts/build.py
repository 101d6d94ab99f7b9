"""Materialize the concept library into a source, incrementally and in parallel.

Each concept becomes ``parquet/mimiciv_derived/<name>.parquet`` beside the source tables,
written atomically. ``concepts.json`` (beside ``source.json``) records, per concept, the
hash of its SQL, of every input it read (source table files, upstream concept outputs)
and of its output, with its row count and build time; it is saved after every concept,
so an interrupted build keeps what it finished. A concept is rebuilt only when its SQL,
an input's content or the engine changed. Finally the source catalog is rewritten so
``Source.connect()`` shows ``mimiciv_derived`` next to the source schemas.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path

import duckdb
from pydantic import BaseModel, Field
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from m4bench.concepts.library import DERIVED_SCHEMA, Concept, ConceptLibrary
from m4bench.errors import M4BenchError
from m4bench.fileio import read_model, sha256_file, write_model
from m4bench.sources.layout import FileEntry, Source, write_catalog, write_parquet
from m4bench.sources.lock import source_lock
from m4bench.sources.parquet_check import check_source, damaged_file_error
from m4bench.sql import create_parquet_views

BUILD_MANIFEST_VERSION = 1
BUILD_MANIFEST_NAME = "concepts.json"
ENGINE = f"duckdb-{duckdb.__version__}"


class ConceptEntry(BaseModel):
    """One materialized concept and what it was built from."""

    sql_sha256: str
    inputs: dict[str, str] = Field(description="qualified input table -> content sha256")
    engine: str
    rows: int
    file: FileEntry
    seconds: float


class ConceptBuildManifest(BaseModel):
    """``concepts.json``: the derived tables of one source."""

    format_version: int = BUILD_MANIFEST_VERSION
    source: str
    dataset: str
    concepts: dict[str, ConceptEntry] = Field(default_factory=dict)

    def output_sha256(self, name: str) -> str | None:
        entry = self.concepts.get(name)
        return entry.file.sha256 if entry else None


@dataclass(frozen=True)
class BuildEvent:
    """What happened to one concept during a build (for progress and reports)."""

    name: str
    action: str  # "built" or "up-to-date"
    seconds: float = 0.0


def manifest_path(source: Source) -> Path:
    return source.layout.root / BUILD_MANIFEST_NAME


def read_build_manifest(source: Source) -> ConceptBuildManifest | None:
    path = manifest_path(source)
    return read_model(path, ConceptBuildManifest) if path.exists() else None


def derived_tables(source: Source) -> list[tuple[str, Path]]:
    """``(mimiciv_derived.<name>, parquet path)`` of every built concept of ``source``."""
    manifest = read_build_manifest(source)
    if manifest is None:
        return []
    tables = []
    for name in sorted(manifest.concepts):
        path = source.layout.resolve(manifest.concepts[name].file)
        if path.exists():
            tables.append((f"{DERIVED_SCHEMA}.{name}", path))
    return tables


def concept_inputs(
    concept: Concept, source: Source, manifest: ConceptBuildManifest
) -> dict[str, str]:
    """Content hashes of everything ``concept`` reads, as it stands now."""
    inputs: dict[str, str] = {}
    for qualified in concept.source_tables:
        entry = source.manifest.tables.get(qualified)
        if entry is None:
            raise M4BenchError(
                f"{concept.path}: reads {qualified}, which source {source.name!r} does not have",
                hint="rebuild the source with all tables of the dataset",
            )
        inputs[qualified] = entry.file.sha256
    for dep in concept.dependencies:
        digest = manifest.output_sha256(dep)
        if digest is None:
            raise M4BenchError(f"{concept.path}: input {DERIVED_SCHEMA}.{dep} was not built")
        inputs[f"{DERIVED_SCHEMA}.{dep}"] = digest
    return inputs


def needs_rebuild(
    concept: Concept, entry: ConceptEntry | None, inputs: Mapping[str, str], source: Source
) -> bool:
    """True unless ``entry`` was built from this SQL, these inputs and this engine."""
    if entry is None or not source.layout.resolve(entry.file).exists():
        return True
    return (
        entry.sql_sha256 != concept.sql_sha256
        or entry.inputs != dict(inputs)
        or entry.engine != ENGINE
    )


def build_concepts(
    source: Source,
    only: list[str] | None = None,
    jobs: int = 1,
    progress: bool = True,
    library: ConceptLibrary | None = None,
    on_event: Callable[[BuildEvent], None] | None = None,
) -> ConceptBuildManifest:
    """Build ``only`` (with their inputs) or the whole library into ``source``.

    ``on_event`` is told about every concept as it is built or found up to date.
    """
    library = library or ConceptLibrary.load(source.manifest.dataset)
    check_source(source)  # a damaged file is named here, not blamed on a concept
    targets = library.order(only)
    fresh = _fresh_manifest(source, library, targets)
    if fresh is not None:  # nothing to write: no lock, so readers never block each other
        notify = on_event or (lambda event: None)
        for concept in targets:
            notify(BuildEvent(concept.name, "up-to-date"))
        return fresh
    with source_lock(source.layout):
        manifest = _starting_manifest(source, library)
        runner = _Scheduler(source, manifest, targets, max(1, jobs))
        try:
            with _progress_bar(progress, len(targets), on_event) as advance:
                runner.run(advance)
        finally:
            write_model(manifest_path(source), manifest)  # drops concepts no longer defined
            write_catalog(source.layout, source.manifest, extra=derived_tables(source))
    return manifest


def _fresh_manifest(
    source: Source, library: ConceptLibrary, targets: list[Concept]
) -> ConceptBuildManifest | None:
    """The recorded build when every target is up to date and nothing is stale, else None.

    Read without the lock: the record is replaced atomically, and anything that looks
    out of date sends the caller down the locked path, which checks again.
    """
    manifest = read_build_manifest(source)
    if manifest is None or not set(manifest.concepts) <= set(library.concepts):
        return None
    for concept in targets:  # dependencies come first
        try:
            inputs = concept_inputs(concept, source, manifest)
        except M4BenchError:
            return None
        if needs_rebuild(concept, manifest.concepts.get(concept.name), inputs, source):
            return None
    return manifest


def _starting_manifest(source: Source, library: ConceptLibrary) -> ConceptBuildManifest:
    """The previous build record, without concepts the library no longer has."""
    previous = read_build_manifest(source)
    kept = previous.concepts.items() if previous else []
    return ConceptBuildManifest(
        source=source.name,
        dataset=source.manifest.dataset,
        concepts={name: entry for name, entry in kept if name in library.concepts},
    )


class _Scheduler:
    """Runs ready concepts on a thread pool; each worker has its own DuckDB connection."""

    def __init__(
        self, source: Source, manifest: ConceptBuildManifest, targets: list[Concept], jobs: int
    ) -> None:
        self.source = source
        self.manifest = manifest
        self.pending = {c.name: c for c in targets}
        self.jobs = jobs
        self.threads = max(1, (os.cpu_count() or 1) // jobs)

    def run(self, advance: Callable[[BuildEvent], None]) -> None:
        running: dict[Future[ConceptEntry], str] = {}
        failure: BaseException | None = None
        with ThreadPoolExecutor(self.jobs, thread_name_prefix="concept") as pool:
            while (self.pending and failure is None) or running:
                if failure is None:
                    try:
                        if self._start_ready(pool, running, advance):
                            continue
                    except M4BenchError as exc:  # keep recording what is still running
                        failure = exc
                if not running:
                    break
                done, _ = wait(running, return_when=FIRST_COMPLETED)
                for future in done:
                    name = running.pop(future)
                    try:
                        entry = future.result()
                    except BaseException as exc:
                        failure = failure or exc
                        continue
                    self._record(name, entry, advance)
        if failure is not None:
            raise failure
        if self.pending:
            names = ", ".join(sorted(self.pending))
            raise M4BenchError(f"concepts left unbuilt: {names}")

    def _start_ready(
        self,
        pool: ThreadPoolExecutor,
        running: dict[Future[ConceptEntry], str],
        advance: Callable[[BuildEvent], None],
    ) -> bool:
        """Start every ready concept; True when one was skipped (so more may be ready)."""
        busy = set(self.pending) | set(running.values())
        ready = [c for _, c in sorted(self.pending.items()) if not set(c.dependencies) & busy]
        skipped = False
        for concept in ready:
            del self.pending[concept.name]
            inputs = concept_inputs(concept, self.source, self.manifest)
            entry = self.manifest.concepts.get(concept.name)
            if needs_rebuild(concept, entry, inputs, self.source):
                paths = self._input_paths(concept)
                future = pool.submit(
                    build_one, self.source, concept, inputs, paths, self.threads, self.jobs
                )
                running[future] = concept.name
            else:
                skipped = True
                event = BuildEvent(concept.name, "up-to-date")
                advance(event)
        return skipped

    def _input_paths(self, concept: Concept) -> dict[str, Path]:
        paths = {q: self.source.table_file(q) for q in concept.source_tables}
        for dep in concept.dependencies:
            paths[f"{DERIVED_SCHEMA}.{dep}"] = self.source.layout.resolve(
                self.manifest.concepts[dep].file
            )
        return paths

    def _record(
        self, name: str, entry: ConceptEntry, advance: Callable[[BuildEvent], None]
    ) -> None:
        self.manifest.concepts[name] = entry
        write_model(manifest_path(self.source), self.manifest)
        event = BuildEvent(name, "built", entry.seconds)
        advance(event)


def build_one(
    source: Source,
    concept: Concept,
    inputs: Mapping[str, str],
    paths: Mapping[str, Path],
    threads: int = 1,
    jobs: int = 1,
) -> ConceptEntry:
    """Materialize one concept to its Parquet file (atomically) and describe it."""
    started = time.perf_counter()
    layout = source.layout
    target = layout.table_path(DERIVED_SCHEMA, concept.name)
    spill = layout.root / ".concepts-tmp"
    con = duckdb.connect(config=_connection_config(threads, jobs, spill))
    try:
        _create_input_views(con, paths)
        query = f"SELECT * FROM (\n{concept.query}\n) AS concept ORDER BY ALL"
        try:
            rows = write_parquet(con, query, target)
        except duckdb.Error as exc:
            _remove_partial_files(target)
            damaged = damaged_file_error(exc, source)
            if damaged is not None:
                raise damaged from exc
            raise M4BenchError(
                f"{concept.path}: building {concept.qualified} failed: {exc}",
                hint="fix the concept's SQL; tables built so far are kept",
            ) from exc
    finally:
        con.close()
    entry = FileEntry(
        path=str(target.relative_to(layout.root)),
        sha256=sha256_file(target),
        bytes=target.stat().st_size,
    )
    return ConceptEntry(
        sql_sha256=concept.sql_sha256,
        inputs=dict(inputs),
        engine=ENGINE,
        rows=rows,
        file=entry,
        seconds=round(time.perf_counter() - started, 3),
    )


def _remove_partial_files(target: Path) -> None:
    """Delete what a failed COPY left beside ``target`` (DuckDB's own ``tmp_`` file)."""
    for leftover in target.parent.glob(f"tmp_.{target.name}.*"):
        leftover.unlink(missing_ok=True)


def _connection_config(threads: int, jobs: int, spill: Path) -> dict[str, str]:
    config = {
        "threads": str(threads),
        "preserve_insertion_order": "true",
        "temp_directory": str(spill),
    }
    total = _total_memory_bytes()
    if total:
        config["memory_limit"] = f"{max(256, int(total * 0.6 / jobs) >> 20)}MB"
    return config


def _total_memory_bytes() -> int:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 0


def _create_input_views(con: duckdb.DuckDBPyConnection, paths: Mapping[str, Path]) -> None:
    create_parquet_views(con, ((q, path.resolve()) for q, path in sorted(paths.items())))


@contextlib.contextmanager
def _progress_bar(
    enabled: bool, total: int, on_event: Callable[[BuildEvent], None] | None
) -> Iterator[Callable[[BuildEvent], None]]:
    """Yield the per-concept callback: advances a rich progress bar when enabled."""
    notify = on_event or (lambda event: None)
    if not enabled:
        yield notify
        return
    columns = (
        TextColumn("[bold]concepts"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.description}"),
    )
    with Progress(*columns) as progress:
        task = progress.add_task("", total=total)

        def advance(event: BuildEvent) -> None:
            progress.update(task, advance=1, description=f"{event.name} ({event.action})")
            notify(event)

        yield advance
