"""Reading the agent's CSV as text into DuckDB, keys cast by the truth's types.

Table ``agent`` holds one row per parsed CSV record (``rowid`` = file order):
typed key columns ``k0..``, ``key_ok`` (every key cell is null or cast exactly),
``b0..`` (the raw key text of rows whose key did not cast) and one text column per
wanted value column, already passed through the null rule. ``agent_first`` keeps the
first row of every castable key, with its file position as ``rn``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import duckdb

from m4bench.scoring.options import ScoreOptions
from m4bench.scoring.output_file import OutputHeader
from m4bench.scoring.sqltypes import agent_cell, agent_key, quote_literal
from m4bench.scoring.truth import TruthTable
from m4bench.tasks.evaluation import EvaluationSpec

AGENT_TABLE = "agent"
FIRST_TABLE = "agent_first"
REJECTS_RECORDED = 1000


@dataclass(frozen=True)
class AgentLayout:
    """Internal names: key i is ``k{i}``; a present value column maps to ``v{j}``."""

    key_count: int
    values: dict[str, str]

    @property
    def keys(self) -> list[str]:
        return [f"k{index}" for index in range(self.key_count)]

    @property
    def bad_keys(self) -> list[str]:
        return [f"b{index}" for index in range(self.key_count)]


@dataclass(frozen=True)
class AgentRows:
    rows: int
    unique_keys: int
    bad_key_rows: int
    rejected_lines: int
    reject_notes: list[str]


def value_columns_wanted(spec: EvaluationSpec, truth: TruthTable) -> list[str]:
    return list(dict.fromkeys([*spec.scored_columns, *truth.ordered]))


def load_agent(
    con: duckdb.DuckDBPyConnection,
    path: Path,
    header: OutputHeader,
    spec: EvaluationSpec,
    truth: TruthTable,
    options: ScoreOptions,
) -> tuple[AgentLayout, AgentRows]:
    """Parse the CSV once into ``agent`` and build ``agent_first``. Keys must be present."""
    present = [name for name in value_columns_wanted(spec, truth) if name in header.positions]
    layout = AgentLayout(
        key_count=len(spec.key_columns),
        values={name: f"v{index}" for index, name in enumerate(present)},
    )
    con.execute(_create_agent_sql(path, header, spec, truth, options, layout))
    rows, bad = _fetch_ints(
        con, f"SELECT count(*), count(*) FILTER (WHERE NOT key_ok) FROM {AGENT_TABLE}"
    )
    group_by = ", ".join(layout.keys + layout.bad_keys)
    (unique,) = _fetch_ints(
        con, f"SELECT count(*) FROM (SELECT 1 FROM {AGENT_TABLE} GROUP BY {group_by})"
    )
    _create_first_rows(con, layout, deduplicate=unique < rows)
    rejected, notes = _rejects(con)
    return layout, AgentRows(rows, unique, bad, rejected, notes)


def _create_agent_sql(
    path: Path,
    header: OutputHeader,
    spec: EvaluationSpec,
    truth: TruthTable,
    options: ScoreOptions,
    layout: AgentLayout,
) -> str:
    rule = options.null_tokens
    raw_cells, typed, ok_parts, bad = [], [], [], []
    for index, name in enumerate(spec.key_columns):
        column = truth.columns[name]
        raw = f"c{header.positions[name]}"
        raw_cells.append(f"{agent_cell(raw, column.kind, rule)} AS r{index}")
        key = agent_key(f"r{index}", column.kind, column.sql_type)
        typed.append(f"{key} AS k{index}")
        ok_parts.append(f"(r{index} IS NULL OR k{index} IS NOT NULL)")
        bad.append(f"CASE WHEN key_ok THEN NULL ELSE r{index} END AS b{index}")
    for name, internal in layout.values.items():
        raw = f"c{header.positions[name]}"
        raw_cells.append(f"{agent_cell(raw, truth.columns[name].kind, rule)} AS {internal}")
    values = "".join(f", {internal}" for internal in layout.values.values())
    raw_keys = ", ".join(f"r{index}" for index in range(layout.key_count))
    return (
        f"CREATE TABLE {AGENT_TABLE} AS "
        f"SELECT * EXCLUDE ({raw_keys}), {', '.join(bad)} FROM ("
        f"SELECT *, {' AND '.join(ok_parts)} AS key_ok FROM ("
        f"SELECT {', '.join(typed)}, {raw_keys}{values} FROM ("
        f"SELECT {', '.join(raw_cells)} FROM {_read_csv(path, header, options)})))"
    )


def _read_csv(path: Path, header: OutputHeader, options: ScoreOptions) -> str:
    columns = ", ".join(f"'c{index}': 'VARCHAR'" for index in range(len(header.names)))
    return (
        f"read_csv({quote_literal(str(path))}, columns = {{{columns}}}, header = true, "
        "auto_detect = false, delim = ',', quote = '\"', escape = '\"', "
        "null_padding = true, strict_mode = false, ignore_errors = true, "
        f"store_rejects = true, rejects_limit = {REJECTS_RECORDED}, "
        f"max_line_size = {options.max_line_bytes}, encoding = 'utf-8')"
    )


def _create_first_rows(
    con: duckdb.DuckDBPyConnection, layout: AgentLayout, *, deduplicate: bool
) -> None:
    rows = f"SELECT rowid AS rn, * FROM {AGENT_TABLE} WHERE key_ok"
    if not deduplicate:
        con.execute(f"CREATE VIEW {FIRST_TABLE} AS {rows}")
        return
    partition = ", ".join(layout.keys)
    con.execute(
        f"CREATE TABLE {FIRST_TABLE} AS {rows} "
        f"QUALIFY row_number() OVER (PARTITION BY {partition} ORDER BY rn) = 1"
    )


def _rejects(con: duckdb.DuckDBPyConnection) -> tuple[int, list[str]]:
    lines, errors = _fetch_ints(con, "SELECT count(DISTINCT line), count(*) FROM reject_errors")
    if lines == 0:
        return 0, []
    kinds = con.execute(
        "SELECT error_type, count(DISTINCT line), min(line) FROM reject_errors "
        "GROUP BY error_type ORDER BY error_type"
    ).fetchall()
    notes = [
        f"{count} lines skipped: {kind} (first at line {first})" for kind, count, first in kinds
    ]
    if errors >= REJECTS_RECORDED:
        notes.append(f"only the first {REJECTS_RECORDED} reader errors were recorded")
    return lines, notes


def _fetch_ints(con: duckdb.DuckDBPyConnection, sql: str) -> tuple[int, ...]:
    row = con.execute(sql).fetchone()
    assert row is not None
    return tuple(int(value) for value in row)
