"""The keyed join of truth to agent rows: every per-column count and the samples.

Truth rows are FULL JOINed to ``agent_first`` on the key columns (rows without a
truth side are the output's extra keys); ``counts.count_rows`` reduces that join to
the matched and uncastable counts per scored column, the summed scaled error per
ordered column, and the output row numbers of the first few extra keys. The samples
(the first disagreements and missing keys in truth order) come from a second join
restricted to a prefix of the truth long enough to hold them, and a last, tiny query
fetches their text by row number.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import duckdb

from m4bench.scoring.agent_table import AGENT_TABLE, FIRST_TABLE, AgentLayout, key_text
from m4bench.scoring.alternatives import Admitted, admit_alternatives
from m4bench.scoring.alternatives_file import TieAlternatives
from m4bench.scoring.cells import IN_TRUTH, PRESENT, cell_sql, join_condition
from m4bench.scoring.counts import Totals, count_rows
from m4bench.scoring.truth import TRUTH_ROW, TRUTH_VIEW, TruthTable
from m4bench.tasks.evaluation import EvaluationSpec


@dataclass(frozen=True)
class JoinCounts:
    """The counts, and the sample records per scored column and of missing keys."""

    totals: Totals
    samples: dict[str, list[dict[str, Any]]]
    missing_sample: list[dict[str, Any]]
    admitted: Admitted | None = None


def _match_flag(
    index: int, name: str, spec: EvaluationSpec, truth: TruthTable, layout: AgentLayout
) -> str | None:
    """Per-row flag ``m{index}``: the column matches; None when the output lacks it."""
    sql = cell_sql(name, spec, truth, layout)
    if sql is None:
        return None
    return f"coalesce({IN_TRUTH} AND {sql.match}, false) AS m{index}"


def compare_rows(
    con: duckdb.DuckDBPyConnection,
    spec: EvaluationSpec,
    truth: TruthTable,
    layout: AgentLayout,
    sample_size: int,
    passes: int = 1,
    alternatives: TieAlternatives | None = None,
) -> JoinCounts:
    """Every count in one full join (``count_rows``, in ``passes`` passes), corrected
    for the truth's tie alternatives when they are given (registered and admitted); the
    samples in a second, small join (``_sample_rows``)."""
    totals = count_rows(con, spec, truth, layout, sample_size, passes)
    admitted = None
    if alternatives is not None:
        admitted = admit_alternatives(con, spec, truth, layout, totals, alternatives)
    if admitted is not None:
        totals = admitted.totals
    joined = totals.joined
    # Columns the output lacks have no sample: only present columns are waited for.
    wrong = {name: joined - count for name, count in totals.matched.items()}
    picked, missing_rows = _sample_rows(
        con,
        spec,
        truth,
        layout,
        (sample_size, _Skip.of(admitted)),
        wrong,
        totals.truth_rows - joined,
    )
    samples = _samples(con, spec, truth, layout, picked, missing_rows)
    missing = samples.pop("", [])
    return JoinCounts(totals, samples, missing, admitted)


@dataclass(frozen=True)
class _Skip:
    """Truth rows no sample shows: cells matched through an alternative (per column)
    and truth keys excused by one."""

    cells: dict[str, list[int]]
    missing: list[int]

    @classmethod
    def of(cls, admitted: Admitted | None) -> _Skip:
        if admitted is None:
            return cls({}, [])
        return cls(admitted.cells, admitted.excused)

    def condition(self, positions: list[int]) -> str:
        """SQL true for a truth row not among ``positions``."""
        if not positions:
            return "true"
        return f"pos NOT IN ({', '.join(str(p) for p in positions)})"


# The samples are the first disagreements in truth order, so they lie among the first
# truth rows: the sample join reads a prefix long enough to hold them at the observed
# rates (with this much slack), and the whole truth only when the prefix falls short.
_PREFIX_SLACK = 4
_PREFIX_MINIMUM = 4096


def _prefix_rows(truth_rows: int, sample_size: int, counts: list[int]) -> int:
    """Truth rows to read so that each count's first ``sample_size`` cases are likely in."""
    needed = [
        _PREFIX_SLACK * min(sample_size, count) * truth_rows // count + _PREFIX_MINIMUM
        for count in counts
        if count > 0
    ]
    return min(truth_rows, max(needed, default=0))


def _sample_rows(
    con: duckdb.DuckDBPyConnection,
    spec: EvaluationSpec,
    truth: TruthTable,
    layout: AgentLayout,
    sampling: tuple[int, _Skip],
    wrong: dict[str, int],
    missing: int,
) -> tuple[dict[str, list[tuple[int, int | None]]], list[tuple[int, int | None]]]:
    """[truth row, output row] of the first disagreements per column and missing keys."""
    sample_size, _ = sampling
    wanted = {name: min(sample_size, count) for name, count in wrong.items()}
    if not sample_size or (not any(wanted.values()) and not missing):
        return {name: [] for name in spec.scored_columns}, []
    prefix = _prefix_rows(truth.rows, sample_size, [*wrong.values(), missing])
    while True:
        picked, missing_rows = _sample_query(con, spec, truth, layout, sampling, prefix)
        complete = all(len(picked[name]) >= count for name, count in wanted.items())
        if prefix >= truth.rows or (complete and len(missing_rows) >= min(sample_size, missing)):
            return picked, missing_rows
        prefix = truth.rows


def _sample_query(
    con: duckdb.DuckDBPyConnection,
    spec: EvaluationSpec,
    truth: TruthTable,
    layout: AgentLayout,
    sampling: tuple[int, _Skip],
    prefix: int,
) -> tuple[dict[str, list[tuple[int, int | None]]], list[tuple[int, int | None]]]:
    sample_size, skip = sampling
    sample = f"min_by([pos, rn], pos, {sample_size}) FILTER (WHERE {{}})"
    per_row = [f"t.{TRUTH_ROW} AS pos", "a.rn AS rn", f"{PRESENT} AS present"]
    select = []
    for index, name in enumerate(spec.scored_columns):
        flag = _match_flag(index, name, spec, truth, layout)
        if flag is None:
            select.append("NULL")
            continue
        per_row.append(flag)
        kept = skip.condition(skip.cells.get(name, []))
        select.append(sample.format(f"present AND NOT m{index} AND {kept}"))
    select.append(sample.format(f"NOT present AND {skip.condition(skip.missing)}"))
    row = con.execute(
        # The LIMIT (which drops nothing: exactly ``prefix`` rows pass the filter) tells
        # the planner how small the truth side is, so the hash table is built on it and
        # the output's rows only probe it.
        f"SELECT {', '.join(select)} FROM (SELECT {', '.join(per_row)} FROM "
        f"(SELECT * FROM {TRUTH_VIEW} WHERE {TRUTH_ROW} < {prefix} LIMIT {prefix}) t "
        f"LEFT JOIN {FIRST_TABLE} a ON {join_condition(spec, truth)})"
    ).fetchone()
    assert row is not None
    picked = {name: _positions(row[index]) for index, name in enumerate(spec.scored_columns)}
    return picked, _positions(row[-1])


def _positions(pairs: list[list[int | None]] | None) -> list[tuple[int, int | None]]:
    """Sample [truth row, agent row] pairs, in truth file order."""
    found = [(int(pair[0]), pair[1]) for pair in pairs or [] if pair[0] is not None]
    return sorted(found, key=lambda pair: pair[0])


def key_struct(spec: EvaluationSpec, truth: TruthTable) -> str:
    """The truth key as a struct of text, for samples shown to a reader."""
    fields = ", ".join(
        f"{truth.columns[name].ident} := CAST(t.{truth.columns[name].ident} AS VARCHAR)"
        for name in spec.key_columns
    )
    return f"struct_pack({fields})"


def _samples(
    con: duckdb.DuckDBPyConnection,
    spec: EvaluationSpec,
    truth: TruthTable,
    layout: AgentLayout,
    picked: dict[str, list[tuple[int, int | None]]],
    missing_rows: list[tuple[int, int | None]],
) -> dict[str, list[dict[str, Any]]]:
    """Sample records per column ("" = missing keys), fetched by truth and agent row
    number so that neither side is scanned in full."""
    pairs = {pair for rows in picked.values() for pair in rows} | set(missing_rows)
    if not pairs:
        return {}
    wanted = ", ".join(str(row) for row in sorted({truth_row for truth_row, _ in pairs}))
    agent_rows = sorted({agent_row for _, agent_row in pairs if agent_row is not None})
    in_agent = ", ".join(str(row) for row in agent_rows) if agent_rows else "NULL"
    cells = []
    for name in spec.scored_columns:
        sql = cell_sql(name, spec, truth, layout, raw_alias="a")
        ident = truth.columns[name].ident
        cells.append(f"CAST(t.{ident} AS VARCHAR)")
        cells.append(sql.text if sql else "NULL")
        cells.append(sql.uncast if sql else "NULL")
    query = (
        f"SELECT t.{TRUTH_ROW}, {key_struct(spec, truth)}, {', '.join(cells)} "
        f"FROM (SELECT * FROM {TRUTH_VIEW} WHERE {TRUTH_ROW} IN ({wanted})) t "
        # The sampled output rows are first rows of their keys: read from ``agent``, whose
        # row number filter runs inside the Parquet scan (``agent_first`` reads it all).
        f"LEFT JOIN (SELECT * FROM {AGENT_TABLE} WHERE rn IN ({in_agent})) a "
        f"ON {join_condition(spec, truth)}"
    )
    by_row = {record[0]: record for record in con.execute(query).fetchall()}
    samples: dict[str, list[dict[str, Any]]] = {"": [by_row[row][1] for row, _ in missing_rows]}
    for index, name in enumerate(spec.scored_columns):
        samples[name] = [
            _mismatch(by_row[row][1], *by_row[row][2 + 3 * index : 5 + 3 * index])
            for row, _ in picked[name]
        ]
    return samples


def _mismatch(key: dict[str, Any], truth: Any, agent: Any, uncast: Any) -> dict[str, Any]:
    if agent is None:
        reason = "agent_null"
    elif uncast:
        reason = "uncastable"
    elif truth is None:
        reason = "truth_null"
    else:
        reason = "value"
    return {"key": key, "truth": truth, "agent": agent, "reason": reason}


def extra_key_sample(
    con: duckdb.DuckDBPyConnection,
    spec: EvaluationSpec,
    truth: TruthTable,
    layout: AgentLayout,
    sample_size: int,
    extra_rows: list[int],
) -> list[dict[str, Any]]:
    """Agent keys absent from the truth (or not castable), first seen first.

    ``extra_rows``: output row numbers of the first few castable keys the truth lacks
    (from ``compare_rows``), so the truth is not joined again.
    """
    if sample_size == 0:
        return []
    in_rows = ", ".join(str(row) for row in extra_rows) if extra_rows else "NULL"
    fields = ", ".join(
        f"{truth.columns[name].ident} := {key_text('a', index)}"
        for index, name in enumerate(spec.key_columns)
    )
    sql = (
        f"SELECT key FROM ("
        f"SELECT struct_pack({fields}) AS key, a.rn AS position FROM {AGENT_TABLE} a "
        f"WHERE NOT a.key_ok UNION ALL "
        f"SELECT struct_pack({fields}), a.rn FROM {AGENT_TABLE} a "
        f"WHERE a.rn IN ({in_rows})) "
        f"GROUP BY key ORDER BY min(position) LIMIT {sample_size}"
    )
    return [record for (record,) in con.execute(sql).fetchall()]
