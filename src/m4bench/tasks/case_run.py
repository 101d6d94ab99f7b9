"""Run a task's patient cases: insert each case's rows, run the reference, compare.

Each case gets its own empty in-memory database (the task's source tables and the
concepts its reference reads), so cases never see each other's rows. A case whose rows
do not insert, or whose reference fails on its rows, fails with that message; the others
still run. A task whose ``cases.toml`` does not load, or whose reference does not run
even on an empty database, gives one error for the task instead of one per case.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import duckdb

from m4bench.concepts.library import ConceptLibrary
from m4bench.concepts.materialize import materialize
from m4bench.errors import M4BenchError
from m4bench.sources.datasets import DERIVED_SCHEMAS
from m4bench.sql import quote_ident
from m4bench.tasks.cases import Case, CaseRows, load_cases, sql_value
from m4bench.tasks.catalog import Task
from m4bench.tasks.evaluation import ColumnTolerance
from m4bench.tasks.reference import (
    empty_reference_database,
    reference_failure,
    repeated_key_problem,
    run_reference,
    wrapped,
)

Key = tuple[Any, ...]


@dataclass(frozen=True)
class CaseResult:
    """One case's verdict; ``problems`` empty when it passed.

    ``error``: the task's cases could not run at all (``cases.toml`` does not load, the
    reference fails on an empty database); ``case`` is then empty and ``problems`` says why.
    """

    task: str
    case: str
    rule: str
    problems: tuple[str, ...]
    error: bool = False

    @property
    def passed(self) -> bool:
        return not self.problems


def task_error(task: Task, problem: str) -> CaseResult:
    """The one result of a task whose cases could not run."""
    return CaseResult(task.name, "", "", (problem,), error=True)


def task_cases(task: Task) -> list[Case]:
    """The cases of ``task`` (none without ``cases.toml``), checked against its columns."""
    return load_cases(task.dir, list(task.card.evaluation.key_columns), task.reference_columns)


def run_cases(task: Task, library: ConceptLibrary | None = None) -> list[CaseResult]:
    """Every case of ``task``, in file order; a single error result when ``cases.toml``
    does not load or the reference does not run whatever the rows."""
    try:
        cases = task_cases(task)
        if cases and library is None and DERIVED_SCHEMAS[task.card.dataset]:
            library = ConceptLibrary.load(task.card.dataset)
    except M4BenchError as exc:
        return [task_error(task, exc.message)]
    results: list[CaseResult] = []
    for case in cases:
        result = run_case(task, case, library)
        if result.error:
            return [result]
        results.append(result)
    return results


def run_task_cases(tasks: Iterable[Task]) -> Iterator[CaseResult]:
    """The cases of every task, in order; each dataset's concept library loaded once."""
    libraries: dict[str, ConceptLibrary | None] = {}
    for task in tasks:
        dataset = task.card.dataset
        if dataset not in libraries:
            libraries[dataset] = ConceptLibrary.load(dataset) if DERIVED_SCHEMAS[dataset] else None
        yield from run_cases(task, libraries[dataset])


def run_case(task: Task, case: Case, library: ConceptLibrary | None) -> CaseResult:
    def verdict(problems: list[str]) -> CaseResult:
        return CaseResult(task.name, case.name, case.rule, tuple(problems))

    try:
        con = empty_reference_database(task, library)
    except M4BenchError as exc:
        return task_error(task, f"no database to run the cases on: {exc.message}")
    try:
        con.execute(wrapped(task.reference_sql, "LIMIT 0"))
    except duckdb.Error as exc:
        con.close()
        return task_error(task, reference_failure(task, exc).message)
    try:
        for block in case.rows:
            _insert(con, block)
        if case.rebuild:
            if library is None:
                return verdict([f"{task.card.dataset} has no concept library to rebuild from"])
            materialize(con, library, case.rebuild, with_dependencies=False)
        table = run_reference(task, con)
    except (M4BenchError, duckdb.Error) as exc:
        return verdict([exc.message if isinstance(exc, M4BenchError) else str(exc)])
    finally:
        con.close()
    repeated = repeated_key_problem(task, table)
    return verdict([*([repeated] if repeated else []), *compare(task, case, table.to_pylist())])


def _insert(con: duckdb.DuckDBPyConnection, block: CaseRows) -> None:
    schema, table = block.table.split(".")
    found = con.execute(
        "SELECT count(*) FROM information_schema.tables WHERE table_schema = ? AND table_name = ?",
        [schema, table],
    ).fetchone()
    if not found or not found[0]:
        raise M4BenchError(f"rows of {block.table}: no such table in the task's database")
    target = f"{quote_ident(schema)}.{quote_ident(table)}"
    for number, row in enumerate(block.rows, start=1):
        names = ", ".join(quote_ident(name) for name in row)
        marks = ", ".join("?" for _ in row)
        try:
            con.execute(
                f"INSERT INTO {target} ({names}) VALUES ({marks})",
                [sql_value(value) for value in row.values()],
            )
        except duckdb.Error as exc:
            raise M4BenchError(f"rows of {block.table}, row {number}: {exc}") from exc


def compare(task: Task, case: Case, rows: list[dict[str, Any]]) -> list[str]:
    """What differs between the reference's ``rows`` and the case's expectations."""
    keys = list(task.card.evaluation.key_columns)
    by_key = {tuple(row[name] for name in keys): row for row in rows}
    problems: list[str] = []
    expected_keys: set[Key] = set()
    for expected in case.expect:
        key = tuple(sql_value(expected[name]) for name in keys)
        expected_keys.add(key)
        got = by_key.get(key)
        if got is None:
            problems.append(f"{_label(keys, key)}: no output row")
            continue
        for name, want in expected.items():
            if name not in keys and not _same(
                sql_value(want), got[name], _tolerance(task, case, name)
            ):
                problems.append(
                    f"{_label(keys, key)}: {name} is {_show(got[name])}, expected {_show(want)}"
                )
    for absent in case.absent:
        key = tuple(sql_value(absent[name]) for name in keys)
        if key in by_key:
            problems.append(f"{_label(keys, key)}: in the output, expected absent")
    if case.only_expected:
        extra = sorted((k for k in by_key if k not in expected_keys), key=repr)
        if extra:
            problems.append(
                f"{len(extra)} output rows not expected, first {_label(keys, extra[0])}"
            )
    return problems


def _tolerance(task: Task, case: Case, name: str) -> ColumnTolerance:
    """The case's own tolerance (absolute), else the card's for the column, else exact."""
    if case.tolerance is not None:
        return ColumnTolerance(absolute=case.tolerance)
    return task.card.evaluation.tolerance.get(name) or ColumnTolerance()


def _same(want: Any, got: Any, tolerance: ColumnTolerance) -> bool:
    if want is None or got is None:
        return want is None and got is None
    numbers = (int, float, Decimal)
    if isinstance(want, bool) or isinstance(got, bool) or not isinstance(want, numbers):
        return bool(want == got)
    if not isinstance(got, numbers):
        return False
    a, b = float(want), float(got)
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    slack = 1e-9 * max(1.0, abs(a))
    if abs(a - b) <= tolerance.absolute + slack:
        return True
    return tolerance.relative is not None and abs(a - b) <= tolerance.relative * abs(a) + slack


def _label(keys: list[str], key: Key) -> str:
    return ", ".join(f"{name}={_show(value)}" for name, value in zip(keys, key, strict=True))


def _show(value: Any) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, Decimal | float):
        return f"{float(value):g}"
    return str(value)
