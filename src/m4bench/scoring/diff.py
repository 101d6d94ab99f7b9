"""The full row-level diff: every disagreeing, missing, extra and duplicate row.

It holds row-level data, so it is written only where the caller says (a harness-side
path), as Parquet, atomically. Keys and values are text so all rows share one schema.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from pathlib import Path

import duckdb

from m4bench.fileio import atomic_path, make_private
from m4bench.scoring.agent_table import AGENT_TABLE, FIRST_TABLE, AgentLayout, key_text
from m4bench.scoring.cells import RAW_JOIN, cell_sql, join_condition
from m4bench.scoring.truth import TRUTH_ROW, TRUTH_VIEW, TruthTable
from m4bench.sql import quote_ident, quote_literal
from m4bench.tasks.evaluation import EvaluationSpec

# The first columns of every diff ``write_diff`` writes: an existing Parquet file that
# starts with them is an earlier diff, and may be replaced.
DIFF_LEADING_COLUMNS = ("status", "agent_row")


def diff_target_problem(target: Path, inputs: Mapping[str, Path]) -> str | None:
    """Why the diff must not be written to ``target``, or None when it may be.

    ``inputs`` names the files scoring reads (``{"--output": path, ...}``): the diff is
    never written over one of them, however the path is spelled. Any other existing
    path is replaced only when it is a diff written earlier: a regular Parquet file
    whose first columns are ``DIFF_LEADING_COLUMNS``.
    """
    for label, path in inputs.items():
        if _same_file(target, path):
            return f"{target}: the diff would replace the {label} file {path}"
    try:
        info = os.lstat(target)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"{target}: cannot be checked before writing the diff: {exc}"
    if not stat.S_ISREG(info.st_mode):
        kind = "a symbolic link" if stat.S_ISLNK(info.st_mode) else "not a regular file"
        return f"{target}: exists and is {kind}; the diff would replace it"
    if not _is_earlier_diff(target):
        return f"{target}: exists and is not a row-level diff the scorer wrote; not replaced"
    return None


def _same_file(first: Path, second: Path) -> bool:
    try:
        if first.resolve() == second.resolve():
            return True
    except (OSError, RuntimeError):  # a loop of symbolic links
        if os.path.abspath(first) == os.path.abspath(second):
            return True
    try:
        return first.samefile(second)  # hard links, bind mounts
    except OSError:
        return False


def _is_earlier_diff(path: Path) -> bool:
    try:
        with path.open("rb") as handle:
            if handle.read(4) != b"PAR1":
                return False
        with duckdb.connect() as con:
            described = con.execute(
                f"DESCRIBE SELECT * FROM read_parquet({quote_literal(str(path))})"
            ).fetchall()
    except (OSError, duckdb.Error):
        return False
    names = tuple(str(row[0]) for row in described[: len(DIFF_LEADING_COLUMNS)])
    return names == DIFF_LEADING_COLUMNS


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
        make_private(tmp)  # it holds the truth's rows: the harness user's alone


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
