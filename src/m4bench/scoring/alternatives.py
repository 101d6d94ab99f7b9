"""Scoring with admissible alternatives: a cell another valid tie order gives is a match.

The counting join (``counts``) compares every output row with the truth alone. When
the truth has an alternatives file (``alternatives_file``) and the options admit ties,
one more, small query corrects its counts, joining the output only where alternatives
are: the alternatives' keys, with their truth rows, against ``agent_first``.

- A truth key the output produced: a scored cell that does not match the truth but
  matches one of the key's alternatives is matched (``matched_by_alternative``); an
  ordered column's error is the smallest over the truth and the alternatives.
- A key only another order gives (``added``), which the output produced: a truth row
  (not an extra key), its cells compared with that order's row.
- A truth key another order does not give (``absent``), which the output lacks: not a
  truth row (not a missing key).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import duckdb

from m4bench.scoring.agent_table import FIRST_TABLE, AgentLayout
from m4bench.scoring.alternatives_file import ALTERNATIVES_VIEW, KIND_COLUMN, TieAlternatives
from m4bench.scoring.cells import cell_sql, join_condition
from m4bench.scoring.counts import ERROR_UNIT, Totals
from m4bench.scoring.sqltypes import truth_value
from m4bench.scoring.truth import TRUTH_ROW, TRUTH_VIEW, TruthTable
from m4bench.tasks.evaluation import EvaluationSpec


@dataclass(frozen=True)
class Admitted:
    """The counts with alternatives admitted, and where they applied: truth row
    positions per scored column (``cells``), of truth keys excused (``excused``), and
    output rows of the keys only another order gives (``added_rows``); ``before``: the
    counts against the truth alone."""

    totals: Totals
    before: Totals
    by_column: dict[str, int]
    cells: dict[str, list[int]]
    excused: list[int]
    added_rows: list[int]

    @property
    def cell_count(self) -> int:
        return sum(self.by_column.values())

    @property
    def changed(self) -> bool:
        return bool(self.cell_count or self.added_rows or self.excused)


def admit_alternatives(
    con: duckdb.DuckDBPyConnection,
    spec: EvaluationSpec,
    truth: TruthTable,
    layout: AgentLayout,
    totals: Totals,
    alternatives: TieAlternatives,
) -> Admitted:
    """``totals`` corrected for the alternatives (see the module's rules). Only columns
    some alternative changes can gain a match, unless a key only another order gives
    brings a whole row."""
    scored = alternatives.columns([n for n in spec.scored_columns if n in layout.values])
    ordered = alternatives.columns([n for n in truth.ordered if n in layout.values])
    per_key = _per_key_sql(spec, truth, layout, scored, ordered)
    select = ["count(*) FILTER (WHERE NOT in_truth)", "list(rn) FILTER (WHERE NOT in_truth)"]
    for i, _ in enumerate(scored):
        select.append(f"count(*) FILTER (WHERE in_truth AND NOT tm{i} AND am{i})")
        select.append(f"list(pos) FILTER (WHERE in_truth AND NOT tm{i} AND am{i})")
        select.append(f"count(*) FILTER (WHERE NOT in_truth AND am{i})")
        select.append(f"count(*) FILTER (WHERE NOT in_truth AND uc{i})")
    for i, _ in enumerate(ordered):
        select.append(
            f"coalesce(sum(CASE WHEN in_truth THEN least(te{i}, coalesce(ae{i}, te{i})) - te{i} "
            f"ELSE ae{i} END), 0)"
        )
    row = con.execute(f"SELECT {', '.join(select)} FROM ({per_key})").fetchone()
    assert row is not None
    added, added_rows, *rest = row
    by_column: dict[str, int] = {}
    cells: dict[str, list[int]] = {}
    matched, uncastable = dict(totals.matched), dict(totals.uncastable)
    for i, name in enumerate(scored):
        admitted, positions, added_matched, added_uncast = rest[4 * i : 4 * i + 4]
        by_column[name] = int(admitted)
        cells[name] = sorted(int(p) for p in positions or [])
        matched[name] = matched.get(name, 0) + int(admitted) + int(added_matched)
        uncastable[name] = uncastable.get(name, 0) + int(added_uncast)
    errors = dict(totals.error_sums)
    for i, name in enumerate(ordered):
        errors[name] = errors.get(name, 0.0) + int(rest[4 * len(scored) + i]) / ERROR_UNIT
    excused = _excused(con, spec, truth) if alternatives.kinds.get("absent") else []
    added_rows = sorted(int(rn) for rn in added_rows or [])
    admitted_rows = set(added_rows)
    corrected = replace(
        totals,
        truth_rows=totals.truth_rows + int(added) - len(excused),
        joined=totals.joined + int(added),
        matched=matched,
        uncastable=uncastable,
        error_sums=errors,
        extra_rows=[rn for rn in totals.extra_rows if rn not in admitted_rows],
    )
    return Admitted(corrected, totals, by_column, cells, excused, added_rows)


def _per_key_sql(
    spec: EvaluationSpec,
    truth: TruthTable,
    layout: AgentLayout,
    scored: list[str],
    ordered: list[str],
) -> str:
    """One row per output key that has alternatives: whether it is a truth key, its
    truth position, and per column whether the truth / an alternative matches (and the
    smallest error in units of ``ERROR_UNIT``)."""
    names = list(dict.fromkeys([*spec.key_columns, *scored, *ordered]))
    columns = ", ".join(truth.columns[n].ident for n in names)
    keys = [truth.columns[n].ident for n in spec.key_columns]
    on = " AND ".join(f"t.{k} IS NOT DISTINCT FROM x.{k}" for k in keys)
    candidates = (
        f"SELECT {columns}, 'truth' AS kind, {TRUTH_ROW} AS pos FROM {TRUTH_VIEW} t "
        f"SEMI JOIN (SELECT DISTINCT {', '.join(keys)} FROM {ALTERNATIVES_VIEW} "
        f"WHERE {KIND_COLUMN} = 'value') x ON {on} "
        f"UNION ALL SELECT {columns}, {KIND_COLUMN}, NULL FROM {ALTERNATIVES_VIEW} "
        f"WHERE {KIND_COLUMN} <> 'absent'"
    )
    truth_side, other = "kind = 'truth'", "kind <> 'truth'"
    select = [
        "a.rn",
        f"bool_or({truth_side}) AS in_truth",
        f"any_value(pos) FILTER (WHERE {truth_side}) AS pos",
    ]
    for i, name in enumerate(scored):
        sql = cell_sql(name, spec, truth, layout)
        assert sql is not None
        select.append(f"coalesce(bool_or({sql.match}) FILTER (WHERE {truth_side}), false) AS tm{i}")
        select.append(f"coalesce(bool_or({sql.match}) FILTER (WHERE {other}), false) AS am{i}")
        select.append(f"bool_or({sql.uncast}) AS uc{i}")
    for i, name in enumerate(ordered):
        error = _error_units(truth, layout, name)
        select.append(f"min({error}) FILTER (WHERE {truth_side}) AS te{i}")
        select.append(f"min({error}) FILTER (WHERE {other}) AS ae{i}")
    return (
        f"SELECT {', '.join(select)} FROM ({candidates}) t JOIN {FIRST_TABLE} a "
        f"ON {join_condition(spec, truth)} GROUP BY a.rn"
    )


def _error_units(truth: TruthTable, layout: AgentLayout, name: str) -> str:
    """The scaled error of one cell in units of ``ERROR_UNIT``, as ``counts`` sums it:
    0 both null, one unit one null (an uncastable cell is null), else the scaled
    difference capped at 1."""
    tv = truth_value(f"t.{truth.columns[name].ident}", truth.columns[name].kind)
    agent = f"a.v{layout.values[name]}"
    scaled = f"least(abs({agent} - {tv}) / {truth.scales[name]!r}, 1.0)"
    return (
        f"CASE WHEN {tv} IS NULL AND {agent} IS NULL THEN CAST(0 AS HUGEINT) "
        f"WHEN {tv} IS NULL OR {agent} IS NULL THEN CAST({ERROR_UNIT} AS HUGEINT) "
        f"ELSE CAST(CAST({scaled} * {float(ERROR_UNIT)!r} AS BIGINT) AS HUGEINT) END"
    )


def _excused(con: duckdb.DuckDBPyConnection, spec: EvaluationSpec, truth: TruthTable) -> list[int]:
    """Truth positions of keys another order does not give and the output lacks."""
    keys = [truth.columns[n].ident for n in spec.key_columns]
    on = " AND ".join(f"t.{k} IS NOT DISTINCT FROM x.{k}" for k in keys)
    rows = con.execute(
        f"SELECT t.{TRUTH_ROW} FROM {TRUTH_VIEW} t "
        f"SEMI JOIN (SELECT DISTINCT {', '.join(keys)} FROM {ALTERNATIVES_VIEW} "
        f"WHERE {KIND_COLUMN} = 'absent') x ON {on} "
        f"ANTI JOIN {FIRST_TABLE} a ON {join_condition(spec, truth)} ORDER BY 1"
    ).fetchall()
    return [int(row[0]) for row in rows]
