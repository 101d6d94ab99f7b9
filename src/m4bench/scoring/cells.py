"""SQL for one row of the keyed join of truth (alias ``t``) and output (alias ``a``).

Shared by the counts, the samples and the row-level diff, so that all three apply
exactly the same matching rules.
"""

from __future__ import annotations

from dataclasses import dataclass

from m4bench.scoring.agent_table import AGENT_TABLE, AgentLayout, cell_text, flag_test
from m4bench.scoring.sqltypes import truth_key, truth_value, values_agree
from m4bench.scoring.truth import TRUTH_ROW, TruthTable
from m4bench.tasks.evaluation import EvaluationSpec

PRESENT = "a.rn IS NOT NULL"
# In the full join of truth and output, rows with no truth side are the output's extras.
IN_TRUTH = f"t.{TRUTH_ROW} IS NOT NULL"
# The raw texts of uncastable cells, joined by row number; only rows that have one
# (``u`` is NULL on every other row), so the join's hash table stays small.
RAW_JOIN = f"LEFT JOIN (SELECT rn, u FROM {AGENT_TABLE} WHERE u IS NOT NULL) r ON r.rn = a.rn"


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
        text=f"coalesce({cell_text(raw_alias, j)}, CAST({typed} AS VARCHAR))",
        agree=values_agree(tv, typed, column.kind, spec.tolerance_for(name)),
        both_null=f"({PRESENT} AND {tv} IS NULL AND {typed} IS NULL AND NOT {flag})",
    )
