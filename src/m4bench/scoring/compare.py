"""The keyed join of truth to agent rows and every per-column count, in one query.

Truth rows are LEFT JOINed to ``agent_first`` on the key columns; each scored column
gets its matched count, uncastable count and a bounded sample of disagreements, and
each ordered column its summed absolute error, all from one vectorized aggregate.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import duckdb

from m4bench.scoring.agent_table import AGENT_TABLE, FIRST_TABLE, AgentLayout
from m4bench.scoring.sqltypes import agent_value, truth_key, truth_value, values_agree
from m4bench.scoring.truth import TRUTH_VIEW, TruthTable
from m4bench.tasks.evaluation import EvaluationSpec

_PRESENT = "a.rn IS NOT NULL"


@dataclass(frozen=True)
class ColumnCounts:
    matched: int
    uncastable: int
    sample: list[dict[str, Any]]


@dataclass(frozen=True)
class JoinCounts:
    """``joined`` = truth rows whose key the agent produced (first agent row per key)."""

    truth_rows: int
    joined: int
    columns: dict[str, ColumnCounts]
    error_sums: dict[str, float]
    missing_sample: list[dict[str, Any]]


def join_condition(spec: EvaluationSpec, truth: TruthTable, agent_alias: str = "a") -> str:
    operator = "IS NOT DISTINCT FROM" if truth.has_null_keys else "="
    parts = []
    for index, name in enumerate(spec.key_columns):
        column = truth.columns[name]
        left = truth_key(f"t.{column.ident}", column.kind, column.sql_type)
        parts.append(f"{left} {operator} {agent_alias}.k{index}")
    return " AND ".join(parts)


def key_struct(spec: EvaluationSpec, truth: TruthTable) -> str:
    """The truth key as a struct of text, for samples shown to a reader."""
    fields = ", ".join(
        f"{truth.columns[name].ident} := CAST(t.{truth.columns[name].ident} AS VARCHAR)"
        for name in spec.key_columns
    )
    return f"struct_pack({fields})"


def _key_order(spec: EvaluationSpec, truth: TruthTable) -> str:
    fields = ", ".join(
        f"o{index} := t.{truth.columns[name].ident}" for index, name in enumerate(spec.key_columns)
    )
    return f"struct_pack({fields})"


@dataclass(frozen=True)
class CellSql:
    """SQL for one scored column on a joined row (truth alias ``t``, agent alias ``a``)."""

    truth: str
    cell: str
    agent: str
    match: str
    uncastable: str


def cell_sql(
    name: str, spec: EvaluationSpec, truth: TruthTable, layout: AgentLayout
) -> CellSql | None:
    """None when the output lacks the column."""
    internal = layout.values.get(name)
    if internal is None:
        return None
    column = truth.columns[name]
    tv = truth_value(f"t.{column.ident}", column.kind)
    cell = f"a.{internal}"
    av = agent_value(cell, column.kind)
    agree = values_agree(tv, av, column.kind, spec.tolerance_for(name))
    both_null = f"({tv} IS NULL AND {cell} IS NULL)"
    match = f"({_PRESENT} AND ({both_null} OR ({tv} IS NOT NULL AND {agree})))"
    return CellSql(tv, cell, av, match, f"({cell} IS NOT NULL AND {av} IS NULL)")


def _column_parts(
    name: str, spec: EvaluationSpec, truth: TruthTable, layout: AgentLayout, sample_size: int
) -> list[str]:
    sql = cell_sql(name, spec, truth, layout)
    if sql is None:
        return ["0", "0", "NULL"]
    parts = [f"count_if({sql.match})", f"count_if({_PRESENT} AND {sql.uncastable})"]
    if sample_size == 0:
        return [*parts, "NULL"]
    reason = (
        f"CASE WHEN {sql.cell} IS NULL THEN 'agent_null' WHEN {sql.uncastable} THEN "
        f"'uncastable' WHEN {sql.truth} IS NULL THEN 'truth_null' ELSE 'value' END"
    )
    ident = truth.columns[name].ident
    record = (
        f"struct_pack(key := {key_struct(spec, truth)}, "
        f"truth := CAST(t.{ident} AS VARCHAR), agent := {sql.cell}, reason := {reason})"
    )
    order = _key_order(spec, truth)
    parts.append(
        f"min_by({record}, {order}, {sample_size}) FILTER (WHERE {_PRESENT} AND NOT {sql.match})"
    )
    return parts


def _error_sum(name: str, truth: TruthTable, layout: AgentLayout) -> str:
    internal = layout.values.get(name)
    if internal is None:
        return "NULL"
    column = truth.columns[name]
    tv = truth_value(f"t.{column.ident}", column.kind)
    cell = f"a.{internal}"
    av = agent_value(cell, column.kind)
    scale = repr(truth.scales[name])
    error = (
        f"CASE WHEN {tv} IS NULL AND {cell} IS NULL THEN 0.0 "
        f"WHEN {tv} IS NULL OR {av} IS NULL THEN 1.0 "
        f"ELSE least(abs({av} - {tv}) / {scale}, 1.0) END"
    )
    return f"coalesce(sum({error}) FILTER (WHERE {_PRESENT}), 0.0)"


def compare_rows(
    con: duckdb.DuckDBPyConnection,
    spec: EvaluationSpec,
    truth: TruthTable,
    layout: AgentLayout,
    sample_size: int,
) -> JoinCounts:
    select = ["count(*)", f"count_if({_PRESENT})"]
    for name in spec.scored_columns:
        select.extend(_column_parts(name, spec, truth, layout, sample_size))
    select.extend(_error_sum(name, truth, layout) for name in truth.ordered)
    if sample_size:
        select.append(
            f"min_by({key_struct(spec, truth)}, {_key_order(spec, truth)}, {sample_size}) "
            f"FILTER (WHERE NOT {_PRESENT})"
        )
    sql = (
        f"SELECT {', '.join(select)} FROM {TRUTH_VIEW} t "
        f"LEFT JOIN {FIRST_TABLE} a ON {join_condition(spec, truth)}"
    )
    row = con.execute(sql).fetchone()
    assert row is not None
    return _unpack(row, spec, truth, sample_size)


def _unpack(
    row: tuple[Any, ...], spec: EvaluationSpec, truth: TruthTable, sample_size: int
) -> JoinCounts:
    values = iter(row)
    truth_rows, joined = int(next(values)), int(next(values))
    columns = {}
    for name in spec.scored_columns:
        matched, uncastable, sample = next(values), next(values), next(values)
        columns[name] = ColumnCounts(int(matched), int(uncastable), list(sample or []))
    error_sums = {}
    for name in truth.ordered:
        total = next(values)
        if total is not None:
            error_sums[name] = float(total)
    missing = list(next(values) or []) if sample_size else []
    return JoinCounts(truth_rows, joined, columns, error_sums, missing)


def extra_key_sample(
    con: duckdb.DuckDBPyConnection,
    spec: EvaluationSpec,
    truth: TruthTable,
    layout: AgentLayout,
    sample_size: int,
) -> list[dict[str, Any]]:
    """Agent keys absent from the truth (or not castable), first seen first."""
    if sample_size == 0:
        return []
    fields = ", ".join(
        f"{truth.columns[name].ident} := coalesce(CAST(a.k{index} AS VARCHAR), a.b{index})"
        for index, name in enumerate(spec.key_columns)
    )
    sql = (
        f"SELECT struct_pack({fields}) AS key FROM {AGENT_TABLE} a "
        f"WHERE NOT a.key_ok OR NOT EXISTS "
        f"(SELECT 1 FROM {TRUTH_VIEW} t WHERE {join_condition(spec, truth)}) "
        f"GROUP BY key ORDER BY min(a.rowid) LIMIT {sample_size}"
    )
    return [record for (record,) in con.execute(sql).fetchall()]
