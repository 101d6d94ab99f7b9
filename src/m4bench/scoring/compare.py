"""The keyed join of truth to agent rows and every per-column count.

Truth rows are FULL JOINed to ``agent_first`` on the key columns (rows without a
truth side are the output's extra keys). One vectorized aggregate gives, per scored
column, the matched and uncastable counts, per ordered column the summed absolute
error, and the output row numbers of the first few extra keys. The samples (the first
disagreements and missing keys in truth order) come from a second join restricted to a
prefix of the truth long enough to hold them, and a last, tiny query fetches their text
by row number.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import duckdb

from m4bench.scoring.agent_table import AGENT_TABLE, FIRST_TABLE, AgentLayout, flag_test
from m4bench.scoring.sqltypes import truth_key, truth_value, values_agree
from m4bench.scoring.truth import TRUTH_ROW, TRUTH_VIEW, TruthTable
from m4bench.tasks.evaluation import EvaluationSpec

PRESENT = "a.rn IS NOT NULL"
# In the full join of truth and output, rows with no truth side are the output's extras.
IN_TRUTH = f"t.{TRUTH_ROW} IS NOT NULL"
RAW_JOIN = f"LEFT JOIN {AGENT_TABLE} r ON r.rowid = a.rn"


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
    extra_rows: list[int]


@dataclass(frozen=True)
class CellSql:
    """SQL for one scored column on a joined row (truth alias ``t``, agent alias ``a``).

    ``agree``: both values present and within tolerance; ``both_null``: the agent
    produced the key and neither side has a value; ``match`` is their union.
    ``text`` (the agent's cell as text) needs the raw row joined as ``r`` (see
    ``RAW_JOIN``).
    """

    truth: str
    typed: str
    uncast: str
    text: str
    agree: str
    both_null: str

    @property
    def match(self) -> str:
        return f"({self.agree} OR {self.both_null})"


def join_condition(spec: EvaluationSpec, truth: TruthTable, agent_alias: str = "a") -> str:
    operator = "IS NOT DISTINCT FROM" if truth.has_null_keys else "="
    parts = []
    for index, name in enumerate(spec.key_columns):
        column = truth.columns[name]
        left = truth_key(f"t.{column.ident}", column.kind, column.sql_type)
        parts.append(f"{left} {operator} {agent_alias}.k{index}")
    return " AND ".join(parts)


def cell_sql(
    name: str, spec: EvaluationSpec, truth: TruthTable, layout: AgentLayout, raw_alias: str = "r"
) -> CellSql | None:
    """None when the output lacks the column."""
    j = layout.values.get(name)
    if j is None:
        return None
    column = truth.columns[name]
    tv = truth_value(f"t.{column.ident}", column.kind)
    typed, flag = f"a.v{j}", flag_test("a", j)
    return CellSql(
        truth=tv,
        typed=typed,
        uncast=flag,
        text=f"coalesce({raw_alias}.u[{j + 1}], CAST({typed} AS VARCHAR))",
        agree=values_agree(tv, typed, column.kind, spec.tolerance_for(name)),
        both_null=f"({PRESENT} AND {tv} IS NULL AND {typed} IS NULL AND NOT {flag})",
    )


def _column_parts(
    index: int, name: str, spec: EvaluationSpec, truth: TruthTable, layout: AgentLayout
) -> tuple[list[str], tuple[str, str, str]]:
    """Per-row flags ``m{i}`` (match) and ``f{i}`` (uncastable), and their aggregates."""
    sql = cell_sql(name, spec, truth, layout)
    if sql is None:
        return [], ("0", "0", "NULL")
    rows = [
        f"coalesce({IN_TRUTH} AND ({sql.agree} OR {sql.both_null}), false) AS m{index}",
        f"coalesce({IN_TRUTH} AND {sql.uncast}, false) AS f{index}",
    ]
    return rows, (_count(f"m{index}"), _count(f"f{index}"), f"present AND NOT m{index}")


def _count(condition: str) -> str:
    """Rows where ``condition`` is true; 0 (never NULL) when there are none."""
    return f"count(*) FILTER (WHERE {condition})"


def _error_parts(
    index: int, name: str, truth: TruthTable, layout: AgentLayout
) -> tuple[list[str], str]:
    """Per-row scaled error ``d{o}`` (both values present) and one-null flag ``n{o}``;
    the aggregate sums errors over joined rows: 0 both null, 1 one null, else scaled."""
    j = layout.values.get(name)
    if j is None:
        return [], "NULL"
    tv = truth_value(f"t.{truth.columns[name].ident}", truth.columns[name].kind)
    # least() skips NULL arguments, so rows without both values give NULL first.
    scaled = f"least(abs(a.v{j} - {tv}) / {truth.scales[name]!r}, 1.0)"
    rows = [
        f"CASE WHEN {IN_TRUTH} AND a.v{j} IS NOT NULL AND {tv} IS NOT NULL "
        f"THEN {scaled} END AS d{index}",
        f"coalesce({IN_TRUTH} AND {PRESENT} AND (({tv} IS NULL) <> (a.v{j} IS NULL)), false) "
        f"AS n{index}",
    ]
    return rows, f"coalesce(sum(d{index}), 0.0) + {_count(f'n{index}')}"


def compare_rows(
    con: duckdb.DuckDBPyConnection,
    spec: EvaluationSpec,
    truth: TruthTable,
    layout: AgentLayout,
    sample_size: int,
) -> JoinCounts:
    """Every count in one full join; the samples in a second, small join (``_sample_rows``)."""
    per_row = [f"t.{TRUTH_ROW} AS pos", "a.rn AS rn", f"{IN_TRUTH} AND {PRESENT} AS present"]
    select = ["count(pos)", _count("present")]
    for index, name in enumerate(spec.scored_columns):
        row_parts, (matched, uncastable, _) = _column_parts(index, name, spec, truth, layout)
        per_row.extend(row_parts)
        select.extend([matched, uncastable])
    for index, name in enumerate(truth.ordered):
        row_parts, total = _error_parts(index, name, truth, layout)
        per_row.extend(row_parts)
        select.append(total)
    if sample_size:
        select.append(f"min(rn, {sample_size}) FILTER (WHERE pos IS NULL)")
    row = con.execute(
        f"SELECT {', '.join(select)} FROM (SELECT {', '.join(per_row)} FROM {TRUTH_VIEW} t "
        f"FULL JOIN {FIRST_TABLE} a ON {join_condition(spec, truth)})"
    ).fetchone()
    assert row is not None
    values = iter(row)
    truth_rows, joined = int(next(values)), int(next(values))
    found = {name: (int(next(values) or 0), int(next(values) or 0)) for name in spec.scored_columns}
    error_sums = {}
    for name in truth.ordered:
        total = next(values)
        if total is not None:
            error_sums[name] = float(total)
    extra_rows = sorted(int(row) for row in next(values) or []) if sample_size else []
    # Columns the output lacks have no sample: only present columns are waited for.
    present = [name for name in found if name in layout.values]
    wrong = {name: joined - found[name][0] for name in present}
    picked, missing_rows = _sample_rows(
        con, spec, truth, layout, sample_size, wrong, truth_rows - joined
    )
    samples = _samples(con, spec, truth, layout, picked, missing_rows)
    columns = {
        name: ColumnCounts(matched, uncastable, samples.get(name, []))
        for name, (matched, uncastable) in found.items()
    }
    return JoinCounts(truth_rows, joined, columns, error_sums, samples.get("", []), extra_rows)


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
    sample_size: int,
    wrong: dict[str, int],
    missing: int,
) -> tuple[dict[str, list[tuple[int, int | None]]], list[tuple[int, int | None]]]:
    """[truth row, output row] of the first disagreements per column and missing keys."""
    wanted = {name: min(sample_size, count) for name, count in wrong.items()}
    if not sample_size or (not any(wanted.values()) and not missing):
        return {name: [] for name in spec.scored_columns}, []
    prefix = _prefix_rows(truth.rows, sample_size, [*wrong.values(), missing])
    while True:
        picked, missing_rows = _sample_query(con, spec, truth, layout, sample_size, prefix)
        complete = all(len(picked[name]) >= count for name, count in wanted.items())
        if prefix >= truth.rows or (complete and len(missing_rows) >= min(sample_size, missing)):
            return picked, missing_rows
        prefix = truth.rows


def _sample_query(
    con: duckdb.DuckDBPyConnection,
    spec: EvaluationSpec,
    truth: TruthTable,
    layout: AgentLayout,
    sample_size: int,
    prefix: int,
) -> tuple[dict[str, list[tuple[int, int | None]]], list[tuple[int, int | None]]]:
    sample = f"min_by([pos, rn], pos, {sample_size}) FILTER (WHERE {{}})"
    per_row = [f"t.{TRUTH_ROW} AS pos", "a.rn AS rn", f"{PRESENT} AS present"]
    select = []
    for index, name in enumerate(spec.scored_columns):
        row_parts, (*_, wrong) = _column_parts(index, name, spec, truth, layout)
        per_row.extend(row_parts)
        select.append(sample.format(wrong) if row_parts else "NULL")
    select.append(sample.format("NOT present"))
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
        sql = cell_sql(name, spec, truth, layout)
        ident = truth.columns[name].ident
        cells.append(f"CAST(t.{ident} AS VARCHAR)")
        cells.append(sql.text if sql else "NULL")
        cells.append(sql.uncast if sql else "NULL")
    query = (
        f"SELECT t.{TRUTH_ROW}, {key_struct(spec, truth)}, {', '.join(cells)} "
        f"FROM (SELECT * FROM {TRUTH_VIEW} WHERE {TRUTH_ROW} IN ({wanted})) t "
        f"LEFT JOIN (SELECT * FROM {FIRST_TABLE} WHERE rn IN ({in_agent})) a "
        f"ON {join_condition(spec, truth)} "
        f"LEFT JOIN (SELECT rowid AS rid, u FROM {AGENT_TABLE} WHERE rowid IN ({in_agent})) r "
        "ON r.rid = a.rn"
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
        f"{truth.columns[name].ident} := coalesce(CAST(a.k{index} AS VARCHAR), a.b[{index + 1}])"
        for index, name in enumerate(spec.key_columns)
    )
    sql = (
        f"SELECT key FROM ("
        f"SELECT struct_pack({fields}) AS key, a.rowid AS position FROM {AGENT_TABLE} a "
        f"WHERE NOT a.key_ok UNION ALL "
        f"SELECT struct_pack({fields}), a.rowid FROM {AGENT_TABLE} a "
        f"WHERE a.rowid IN ({in_rows})) "
        f"GROUP BY key ORDER BY min(position) LIMIT {sample_size}"
    )
    return [record for (record,) in con.execute(sql).fetchall()]
