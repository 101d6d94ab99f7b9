"""Tie scenarios: a task's reference run with some of its tie points in another order.

A task depends on the tie points of the concepts its reference reads (closed over their
inputs) and of its reference file (``m4bench.concepts.ties``). A scenario picks one
alternative order for some of them; the concepts it changes, and every concept that
reads them, are rebuilt under that order into a scratch DuckDB database of their own
(``ScenarioDatabases``: one per choice of concept orders, shared by every task of one
setup), and the reference runs there, its own tie points edited too.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pyarrow as pa

from m4bench.concepts.build import derived_tables
from m4bench.concepts.library import DERIVED_SCHEMA, ConceptLibrary, concept_files
from m4bench.concepts.ties import DeclaredTie, TieOrder, apply_orders, load_ties, ties_path
from m4bench.errors import M4BenchError
from m4bench.provision.layout import TIE_SCRATCH_PREFIX
from m4bench.sources.datasets import DERIVED_SCHEMAS
from m4bench.sources.layout import Source
from m4bench.sql import create_parquet_views
from m4bench.tasks.catalog import Task
from m4bench.tasks.reference import ordered_query, output_columns, reference_failure

# More scenarios than this for one reference is a declaration to split, not a run to wait for.
MAX_SCENARIOS = 64
Choice = tuple[DeclaredTie, TieOrder]


@dataclass(frozen=True)
class Scenario:
    """One alternative order for each of some tie points (sorted by tie id)."""

    choices: tuple[Choice, ...]

    @property
    def label(self) -> str:
        return " + ".join(f"{tie.id}={order.name}" for tie, order in self.choices)

    def concept_choices(self, library: ConceptLibrary) -> tuple[Choice, ...]:
        return tuple(c for c in self.choices if c[0].owner in library.concepts)

    def reference_sql(self, task: Task) -> str:
        mine = [c for c in self.choices if c[0].owner == reference_owner(task)]
        return apply_orders(task.reference_sql, mine)


def reference_owner(task: Task) -> str:
    return f"{task.family}/{task.card.reference.file}"


def task_tie_files(task: Task) -> list[tuple[str, Path]]:
    """``(owner, ties file)`` of every declaration ``task``'s answer could depend on,
    found without parsing the concept library (for staleness checks)."""
    files: list[tuple[str, Path]] = []
    if DERIVED_SCHEMAS.get(task.card.dataset):
        paths = concept_files(task.card.dataset)
        files = [(name, ties_path(paths[name])) for name in task.depends_on if name in paths]
    files.append((reference_owner(task), ties_path(task.reference_path)))
    return [(owner, path) for owner, path in files if path.is_file()]


def task_ties(task: Task, library: ConceptLibrary | None) -> list[DeclaredTie]:
    """Every tie point ``task``'s answer depends on: those of the concepts it reads
    (with their inputs), then those of its reference file."""
    found: list[DeclaredTie] = []
    if library is not None:
        for name in task.depends_on:
            concept = library.get(name)
            found += load_ties(concept.path, concept.name, concept.query)
    found += load_ties(task.reference_path, reference_owner(task), task.reference_sql)
    return sorted(found, key=lambda tie: tie.id)


def single_scenarios(ties: Sequence[DeclaredTie]) -> list[Scenario]:
    """One scenario per alternative order of each tie point."""
    return [Scenario(((tie, order),)) for tie in ties for order in tie.point.alternative]


def combined_scenarios(effective: dict[str, list[Choice]]) -> list[Scenario]:
    """Every combination of two or more tie points' effective orders (``effective``:
    tie id -> the orders that changed a cell on their own)."""
    options: list[list[Choice | None]] = [[None, *effective[tie]] for tie in sorted(effective)]
    scenarios = []
    for combo in itertools.product(*options):
        chosen = tuple(choice for choice in combo if choice is not None)
        if len(chosen) >= 2:
            scenarios.append(Scenario(chosen))
    if len(scenarios) > MAX_SCENARIOS:
        raise M4BenchError(
            f"{len(scenarios)} combinations of tie orders ({', '.join(sorted(effective))}); "
            f"at most {MAX_SCENARIOS} are run",
            hint="declare fewer alternative orders for these tie points",
        )
    return scenarios


class ScenarioDatabases:
    """Scratch databases, one per choice of concept orders, each holding the source and
    built concepts as views and the concepts that choice changes as tables. Use as a
    context manager; everything is deleted on exit."""

    def __init__(self, source: Source, library: ConceptLibrary | None, folder: Path) -> None:
        self.source = source
        self.library = library
        self._stack = contextlib.ExitStack()
        self._folder = Path(self._stack.enter_context(_scratch_folder(folder)))
        self._open: dict[tuple[str, ...], tuple[duckdb.DuckDBPyConnection, set[str]]] = {}

    def __enter__(self) -> ScenarioDatabases:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        for con, _ in self._open.values():
            con.close()
        self._open.clear()
        self._stack.close()

    def run(self, task: Task, scenario: Scenario) -> pa.Table:
        """``task``'s reference under ``scenario``, sorted like the ground truth."""
        choices = scenario.concept_choices(self.library) if self.library else ()
        con = self._connection(choices, task.depends_on)
        sql = scenario.reference_sql(task)
        columns = output_columns(sql, str(task.reference_path))
        query = ordered_query(sql, task.card.evaluation.key_columns, columns)
        try:
            return con.execute(query).fetch_arrow_table()
        except duckdb.Error as exc:
            raise reference_failure(task, exc) from exc

    def _connection(
        self, choices: tuple[Choice, ...], needed: Sequence[str]
    ) -> duckdb.DuckDBPyConnection:
        key = tuple(sorted(f"{tie.id}={order.name}" for tie, order in choices))
        if key not in self._open:
            path = self._folder / f"scenario-{len(self._open)}.duckdb"
            self._open[key] = (self._new_database(path), set())
        con, built = self._open[key]
        if choices:
            assert self.library is not None
            self._build_changed(con, built, choices, needed)
        return con

    def _new_database(self, path: Path) -> duckdb.DuckDBPyConnection:
        con = duckdb.connect(str(path), config=_config(self._folder / "spill"))
        tables = [(q, self.source.table_file(q)) for q in sorted(self.source.manifest.tables)]
        tables += derived_tables(self.source)
        create_parquet_views(con, ((q, file.resolve()) for q, file in tables))
        return con

    def _build_changed(
        self,
        con: duckdb.DuckDBPyConnection,
        built: set[str],
        choices: tuple[Choice, ...],
        needed: Sequence[str],
    ) -> None:
        """Rebuild, in dependency order, every needed concept a choice edits or that
        reads one (directly or through others); each once per database."""
        assert self.library is not None
        edited = {tie.owner for tie, _ in choices}
        changed: set[str] = set()
        for concept in self.library.order(needed):
            if concept.name in edited or changed & set(concept.dependencies):
                changed.add(concept.name)
            if concept.name not in changed or concept.name in built:
                continue
            mine = [c for c in choices if c[0].owner == concept.name]
            query = apply_orders(concept.query, mine)
            try:
                con.execute(f"DROP VIEW IF EXISTS {concept.qualified}")
                con.execute(f"CREATE TABLE {concept.qualified} AS\n{query}")
            except duckdb.Error as exc:
                raise M4BenchError(
                    f"{concept.path}: building {DERIVED_SCHEMA}.{concept.name} under tie "
                    f"orders {', '.join(sorted(edited))} failed: {exc}",
                    hint="fix the tie declaration's edits",
                ) from exc
            built.add(concept.name)


@contextlib.contextmanager
def _scratch_folder(parent: Path) -> Iterator[str]:
    parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=TIE_SCRATCH_PREFIX, dir=parent) as folder:
        yield folder


def _config(spill: Path) -> dict[str, str]:
    config = {"temp_directory": str(spill), "preserve_insertion_order": "true"}
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        total = 0
    if total:
        config["memory_limit"] = f"{max(256, int(total * 0.4) >> 20)}MB"
    return config
