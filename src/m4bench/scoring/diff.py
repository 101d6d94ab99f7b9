"""The full row-level diff: every disagreeing, missing, extra and duplicate row.

It holds row-level data, so it is written only where the caller says (a harness-side
path), as Parquet, atomically. Keys and values are text so all rows share one schema.
"""

from __future__ import annotations

from pathlib import Path

import duckdb

from m4bench.fileio import atomic_path
from m4bench.scoring.agent_table import AGENT_TABLE, FIRST_TABLE, AgentLayout, key_text
from m4bench.scoring.cells import RAW_JOIN, cell_sql, join_condition
from m4bench.scoring.sqltypes import quote_ident, quote_literal
from m4bench.scoring.truth import TRUTH_ROW, TRUTH_VIEW, TruthTable
from m4bench.tasks.evaluation import EvaluationSpec


def write_diff(
    con: duckdb.DuckDBPyConnection,
    spec: EvaluationSpec,
    truth: TruthTable,
    layout: AgentLayout,
    target: Path,
) -> None:
    """Write the diff as Parquet, one row per problem row.

    Columns: ``status``, ``agent_row`` (1-based data row of the output, NULL for a
    missing truth row), the key columns, then ``<column>__truth``, ``<column>__agent``
    and ``<column>__match`` per scored column. Status ``mismatch``: a truth row whose
    key the agent produced with at least one disagreeing column; ``missing``: a truth
    key the agent did not produce; ``extra``: an agent row whose key is not in the truth
    or does not cast; ``duplicate``: a repeated agent row of a truth key.
    """
    query = f"{_truth_side(spec, truth, layout)} UNION ALL {_agent_side(spec, truth, layout)}"
    # Sorted on integers only: a missing row has no output row, and its truth row
    # (``truth_row``, not written) orders it; every other row has an output row of its own.
    with atomic_path(target) as tmp:
        con.execute(
            f"COPY (SELECT * EXCLUDE (truth_row) FROM ({query}) "
            "ORDER BY status, agent_row NULLS FIRST, truth_row) "
            f"TO {quote_literal(str(tmp))} (FORMAT parquet)"
        )


def _values(
    spec: EvaluationSpec, truth: TruthTable, layout: AgentLayout, *, joined: bool
) -> tuple[list[str], list[str]]:
    select, matches = [], []
    for name in spec.scored_columns:
        sql = cell_sql(name, spec, truth, layout, raw_alias="r" if joined else "a")
        truth_text = f"CAST(t.{truth.columns[name].ident} AS VARCHAR)" if joined else "NULL"
        agent_text = sql.text if sql else "CAST(NULL AS VARCHAR)"
        match = f"coalesce({sql.match}, false)" if sql else "false"
        if not joined:
            match = "CAST(NULL AS BOOLEAN)"
        select.append(f"{truth_text} AS {quote_ident(name + '__truth')}")
        select.append(f"{agent_text} AS {quote_ident(name + '__agent')}")
        select.append(f"{match} AS {quote_ident(name + '__match')}")
        matches.append(match)
    return select, matches


def _truth_side(spec: EvaluationSpec, truth: TruthTable, layout: AgentLayout) -> str:
    keys = [
        f"CAST(t.{truth.columns[name].ident} AS VARCHAR) AS {truth.columns[name].ident}"
        for name in spec.key_columns
    ]
    values, matches = _values(spec, truth, layout, joined=True)
    return (
        "SELECT CASE WHEN a.rn IS NULL THEN 'missing' ELSE 'mismatch' END AS status, "
        f"a.rn + 1 AS agent_row, t.{TRUTH_ROW} AS truth_row, {', '.join(keys + values)} "
        f"FROM {TRUTH_VIEW} t LEFT JOIN {FIRST_TABLE} a ON {join_condition(spec, truth)} "
        f"{RAW_JOIN} WHERE NOT ({' AND '.join(matches)})"
    )


def _agent_side(spec: EvaluationSpec, truth: TruthTable, layout: AgentLayout) -> str:
    keys = [
        f"{key_text('a', index)} AS {truth.columns[name].ident}"
        for index, name in enumerate(spec.key_columns)
    ]
    values, _ = _values(spec, truth, layout, joined=False)
    truth_keys = ", ".join(f"{truth.columns[name].ident}" for name in spec.key_columns)
    hits = f"(SELECT {truth_keys}, true AS hit FROM {TRUTH_VIEW})"
    foreign = "(NOT a.key_ok OR t.hit IS NULL)"
    return (
        f"SELECT CASE WHEN {foreign} THEN 'extra' ELSE 'duplicate' END AS status, "
        f"a.rn + 1 AS agent_row, NULL AS truth_row, {', '.join(keys + values)} "
        f"FROM {AGENT_TABLE} a LEFT JOIN {hits} t ON {join_condition(spec, truth)} "
        f"LEFT JOIN {FIRST_TABLE} f ON f.rn = a.rn "
        f"WHERE {foreign} OR f.rn IS NULL"
    )
