"""Admissible alternatives of a ground truth: the cells another tie order gives.

For a task whose answer depends on tie points (``m4bench.concepts.ties``), the
reference runs again under each alternative order of each tie point
(``tie_scenarios``); the orders that change some cell on their own are then run in
every combination. Each run is compared with the truth by key: a truth key whose row
differs, a key only that run gives, a truth key it does not give. Those rows, with the
truth's columns and types, are written beside the truth
(``m4bench.scoring.alternatives_file``); the manifest's ``alternatives`` entry says
which tie points and orders were run and how many cells, per column, have an
alternative. A task without tie points gets no entry and no file; one whose orders
change nothing gets an entry and no file.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
from pydantic import BaseModel, Field

from m4bench.concepts.ties import DeclaredTie
from m4bench.fileio import atomic_path, sha256_file
from m4bench.provision.tie_scenarios import (
    Choice,
    Scenario,
    ScenarioDatabases,
    combined_scenarios,
    single_scenarios,
)
from m4bench.scoring.alternatives_file import (
    KIND_COLUMN,
    ORDER_COLUMN,
    alternatives_path,
    with_pairing,
)
from m4bench.scoring.sqltypes import quote_ident
from m4bench.tasks.catalog import Task

# Two runs of one double expression can differ in the last bits (threads add in another
# order); a difference this small is no alternative.
_FLOAT_SLACK = 1e-9


class TieAlternativesEntry(BaseModel):
    """The manifest's record of a truth's admissible alternatives."""

    tie_points: list[str] = Field(description="<owner>:<tie> the reference depends on")
    scenarios: list[str] = Field(description="the orders run, <tie>=<order> + ...")
    effective: list[str] = Field(description="tie points whose orders change a cell alone")
    file: str | None = Field(description="the alternatives file's name; None: nothing changes")
    rows: int
    cells: dict[str, int] = Field(description="output column -> truth cells with alternatives")
    added_keys: int
    absent_keys: int
    sha256: str | None = None
    bytes: int | None = None

    @property
    def total_cells(self) -> int:
        return sum(self.cells.values())


@dataclass
class ComputedAlternatives:
    """The alternative rows of one truth (``table`` None when none) and what was run."""

    ties: list[DeclaredTie]
    scenarios: list[str] = field(default_factory=list)
    effective: list[str] = field(default_factory=list)
    table: pa.Table | None = None
    cells: dict[str, int] = field(default_factory=dict)
    added_keys: int = 0
    absent_keys: int = 0


def compute_alternatives(
    task: Task, truth: pa.Table, ties: Sequence[DeclaredTie], databases: ScenarioDatabases
) -> ComputedAlternatives:
    """Run ``task``'s reference under every order of ``ties`` (alone, then the
    effective ones combined) and collect the rows that differ from ``truth``."""
    keys = list(task.card.evaluation.key_columns)
    result = ComputedAlternatives(list(ties))
    found: list[pa.Table] = []
    effective: dict[str, list[Choice]] = {}
    for scenario in single_scenarios(ties):
        rows = _run(task, truth, keys, scenario, databases, result)
        if rows.num_rows:
            found.append(rows)
            tie, order = scenario.choices[0]
            effective.setdefault(tie.id, []).append((tie, order))
    for scenario in combined_scenarios(effective):
        rows = _run(task, truth, keys, scenario, databases, result)
        if rows.num_rows:
            found.append(rows)
    result.effective = sorted(effective)
    if found:
        _summarize(result, truth, keys, pa.concat_tables(found))
    return result


def alternatives_of(
    truth: pa.Table, keys: list[str], answers: dict[str, pa.Table]
) -> ComputedAlternatives:
    """The alternatives of ``truth`` given other orders' answers (``{label: answer}``),
    already computed."""
    result = ComputedAlternatives([], scenarios=sorted(answers))
    found = [differing_rows(truth, answers[label], keys, label) for label in sorted(answers)]
    found = [rows for rows in found if rows.num_rows]
    if found:
        _summarize(result, truth, keys, pa.concat_tables(found))
    return result


def _run(
    task: Task,
    truth: pa.Table,
    keys: list[str],
    scenario: Scenario,
    databases: ScenarioDatabases,
    result: ComputedAlternatives,
) -> pa.Table:
    result.scenarios.append(scenario.label)
    answer = databases.run(task, scenario)
    return differing_rows(truth, answer.cast(truth.schema), keys, scenario.label)


def differing_rows(truth: pa.Table, answer: pa.Table, keys: list[str], label: str) -> pa.Table:
    """The rows of ``answer`` that differ from ``truth`` by key (kinds ``value`` and
    ``added``) and the truth keys it lacks (``absent``), each labelled with ``label``."""
    columns = truth.column_names
    others = [name for name in columns if name not in keys]
    on = " AND ".join(f"s.{quote_ident(k)} IS NOT DISTINCT FROM t.{quote_ident(k)}" for k in keys)
    differs = " OR ".join(_differs(truth.schema.field(name)) for name in others) or "false"
    chosen = ", ".join(f"s.{quote_ident(name)}" for name in columns)
    absent = ", ".join(
        f"t.{quote_ident(name)}"
        if name in keys
        else f"CAST(NULL AS {_sql_type(truth, name)}) AS {quote_ident(name)}"
        for name in columns
    )
    tag = f"'{label.replace(chr(39), chr(39) * 2)}' AS {ORDER_COLUMN}"
    sql = (
        f"SELECT {chosen}, 'value' AS {KIND_COLUMN}, {tag} FROM answer_rows s "
        f"JOIN truth_rows t ON {on} WHERE {differs} "
        f"UNION ALL SELECT {chosen}, 'added', {tag} FROM answer_rows s "
        f"ANTI JOIN truth_rows t ON {on} "
        f"UNION ALL SELECT {absent}, 'absent', {tag} FROM truth_rows t "
        f"ANTI JOIN answer_rows s ON {on}"
    )
    with duckdb.connect() as con:
        con.register("truth_rows", truth)
        con.register("answer_rows", answer)
        return con.execute(sql).fetch_arrow_table()


def _differs(column: pa.Field) -> str:
    name = quote_ident(column.name)
    if pa.types.is_floating(column.type):
        close = f"abs(s.{name} - t.{name}) <= {_FLOAT_SLACK!r} * greatest(1.0, abs(t.{name}))"
        return f"(s.{name} IS DISTINCT FROM t.{name} AND coalesce(NOT ({close}), true))"
    return f"(s.{name} IS DISTINCT FROM t.{name})"


def _sql_type(table: pa.Table, name: str) -> str:
    with duckdb.connect() as con:
        con.register("typed", table.select([name]).slice(0, 0))
        row = con.execute("DESCRIBE typed").fetchone()
    assert row is not None
    return str(row[1])


def _summarize(
    result: ComputedAlternatives, truth: pa.Table, keys: list[str], found: pa.Table
) -> None:
    """One row per distinct alternative (its orders joined), sorted; counts per column."""
    columns = [quote_ident(name) for name in truth.column_names]
    key_list = ", ".join(quote_ident(k) for k in keys)
    others = [name for name in truth.column_names if name not in keys]
    with duckdb.connect() as con:
        con.register("found_rows", found)
        con.register("truth_rows", truth)
        table = con.execute(
            f"SELECT {', '.join(columns)}, {KIND_COLUMN}, "
            f"string_agg(DISTINCT {ORDER_COLUMN}, ' | ' ORDER BY {ORDER_COLUMN}) AS {ORDER_COLUMN} "
            f"FROM found_rows GROUP BY ALL "
            f"ORDER BY {key_list}, {KIND_COLUMN}, {', '.join(columns)} NULLS LAST"
        ).fetch_arrow_table()
        con.register("alternative_rows", table)
        result.cells = _cells(con, truth, keys, others)
        kinds = dict(
            con.execute(
                f"SELECT {KIND_COLUMN}, count(DISTINCT ({key_list})) FROM alternative_rows "
                "GROUP BY ALL"
            ).fetchall()
        )
    result.added_keys = int(kinds.get("added", 0))
    result.absent_keys = int(kinds.get("absent", 0))
    schema = pa.schema(
        [*truth.schema, pa.field(KIND_COLUMN, pa.string()), pa.field(ORDER_COLUMN, pa.string())]
    )
    result.table = table.cast(schema)


def _cells(
    con: duckdb.DuckDBPyConnection, truth: pa.Table, keys: list[str], others: list[str]
) -> dict[str, int]:
    """Per non-key column: truth keys with at least one alternative value for it."""
    if not others:
        return {}
    on = " AND ".join(f"s.{quote_ident(k)} IS NOT DISTINCT FROM t.{quote_ident(k)}" for k in keys)
    key_struct = ", ".join(f"t.{quote_ident(k)}" for k in keys)
    counts = ", ".join(
        f"count(DISTINCT ({key_struct})) FILTER (WHERE {_differs(truth.schema.field(name))})"
        for name in others
    )
    row = con.execute(
        f"SELECT {counts} FROM alternative_rows s JOIN truth_rows t ON {on} "
        f"WHERE s.{KIND_COLUMN} = 'value'"
    ).fetchone()
    assert row is not None
    return {name: int(count) for name, count in zip(others, row, strict=True) if count}


def write_alternatives(
    computed: ComputedAlternatives, truth: Path, truth_rows: int
) -> TieAlternativesEntry:
    """Write the alternatives beside ``truth`` (already written), or remove a stale
    file when there are none; the manifest entry describing them."""
    target = alternatives_path(truth)
    entry = TieAlternativesEntry(
        tie_points=[tie.id for tie in computed.ties],
        scenarios=computed.scenarios,
        effective=computed.effective,
        file=None,
        rows=0,
        cells=computed.cells,
        added_keys=computed.added_keys,
        absent_keys=computed.absent_keys,
    )
    if computed.table is None:
        target.unlink(missing_ok=True)
        return entry
    with atomic_path(target) as tmp:
        pq.write_table(
            with_pairing(computed.table, truth, truth_rows),
            tmp,
            compression="lz4",
            use_dictionary=False,
            write_statistics=True,
            version="2.6",
        )
    return entry.model_copy(
        update={
            "file": target.name,
            "rows": computed.table.num_rows,
            "sha256": sha256_file(target),
            "bytes": target.stat().st_size,
        }
    )
