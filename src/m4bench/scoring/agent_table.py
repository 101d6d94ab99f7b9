"""Reading the agent's CSV as text, every cell cast by the truth's types, into Parquet.

The parsed rows are written once, in file order, to an uncompressed Parquet file in
the scorer's scratch directory, and view ``agent`` reads it back with ``rn`` = the
row's position in the output (0-based). Writing to disk instead of an in-memory table
keeps the scorer's memory to the join's hash table: DuckDB's order-keeping table
insert held most of the parsed output in memory at once and cost more time. Columns:
typed key columns ``k0..``, ``key_ok`` (every key cell is null or casts exactly),
``b`` (the raw key texts, only on rows whose key did not cast), per wanted value
column ``v{j}`` (the cell cast to the truth's comparison type), flag words ``w0..``
with bit ``j`` set when cell ``j`` is not null but did not cast, ``u`` (only on
rows with such a cell: the raw texts, element ``j`` for column ``j``), and ``nl``
(line breaks where a quote left open would put them, else NULL). ``b`` and ``u``
are JSON arrays as text (read back with ``key_text`` and ``cell_text``): NULL on
ordinary rows, they cost almost nothing there, where Parquet list columns cost a
tenth of a second per 4 M rows. A cell is null for the agent exactly when ``v{j}`` is
NULL and its flag is clear. View ``agent_first`` keeps the first row of every castable
key (``rn``, keys, values and flags only: the join payload stays small; raw text is
looked up in ``agent`` by ``rn`` when needed).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import duckdb

from m4bench.scoring.options import ScoreOptions
from m4bench.scoring.output_file import OutputHeader
from m4bench.scoring.sqltypes import agent_cell, agent_key, agent_value
from m4bench.scoring.truth import TruthTable
from m4bench.sql import quote_literal
from m4bench.tasks.evaluation import EvaluationSpec

AGENT_TABLE = "agent"
FIRST_TABLE = "agent_first"
_REPEATS = "agent_repeats"
SCRATCH_TABLES = (_REPEATS,)
SCRATCH_VIEWS = (FIRST_TABLE, AGENT_TABLE)
# Parquet writer settings for the scratch copy: no compression and no dictionaries,
# since the file is read back once, moments later, from the page cache.
_SCRATCH_FORMAT = "FORMAT parquet, COMPRESSION uncompressed, DICTIONARY_SIZE_LIMIT 1"
REJECTS_RECORDED = 1000
# Uncastable-cell flags are packed into BIGINT words of this many bits (w0, w1, ...).
FLAG_BITS = 62


def key_text(alias: str, index: int) -> str:
    """SQL for key ``index`` of row ``alias`` as text: its typed value, or the raw text
    when the key did not cast."""
    return f"coalesce(CAST({alias}.k{index} AS VARCHAR), json_extract_string({alias}.b, {index}))"


def cell_text(alias: str, j: int) -> str:
    """SQL for the raw text of value cell ``j`` of row ``alias``, NULL unless uncastable."""
    return f"json_extract_string({alias}.u, {j})"


def flag_test(alias: str, j: int) -> str:
    """SQL true when value column ``j`` of the row did not cast (NULL when no row);
    ``alias`` "" for the row's own columns."""
    prefix = f"{alias}." if alias else ""
    return f"(({prefix}w{j // FLAG_BITS} & {1 << (j % FLAG_BITS)}) <> 0)"


@dataclass(frozen=True)
class AgentLayout:
    """Internal names: key i is ``k{i}``; a present value column maps to index ``j``."""

    key_count: int
    values: dict[str, int]

    @property
    def keys(self) -> list[str]:
        return [f"k{index}" for index in range(self.key_count)]

    @property
    def flag_words(self) -> list[str]:
        return [f"w{word}" for word in range(-(-len(self.values) // FLAG_BITS))]


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
    scratch: Path,
) -> tuple[AgentLayout, AgentRows]:
    """Parse the CSV once into ``scratch`` (a Parquet file, replaced if present) and
    define views ``agent`` and ``agent_first`` over it. Keys must be present."""
    present = [name for name in value_columns_wanted(spec, truth) if name in header.positions]
    layout = AgentLayout(
        key_count=len(spec.key_columns), values={name: j for j, name in enumerate(present)}
    )
    try:
        _store(con, _agent_rows_sql(path, header, spec, truth, options, layout), scratch)
    except duckdb.Error as exc:
        # The parallel reader refuses padded rows with quoted newlines; read serially.
        if "parallel=false" not in str(exc):
            raise
        con.execute("DROP TABLE IF EXISTS reject_errors; DROP TABLE IF EXISTS reject_scans")
        sql = _agent_rows_sql(path, header, spec, truth, options, layout, parallel=False)
        _store(con, sql, scratch)
    repeated_ok = _create_repeats(con, layout)
    keys = ", ".join(layout.keys)
    rows, bad, bad_unique, rejected, errors = _fetch_ints(
        con,
        f"SELECT count(*), count(*) FILTER (WHERE NOT key_ok), "
        f"count(DISTINCT struct_pack({keys}, b)) FILTER (WHERE NOT key_ok), "
        "(SELECT count(DISTINCT line) FROM reject_errors), (SELECT count(*) FROM reject_errors) "
        f"FROM {AGENT_TABLE}",
    )
    # Rows with a castable key and rows without one never share a key (``b`` is NULL
    # exactly on the former), so their distinct counts add up.
    unique = (rows - bad - repeated_ok) + bad_unique
    _create_first_rows(con, layout, deduplicate=repeated_ok > 0)
    notes = _reject_notes(con, errors) if rejected else []
    swallowed = _open_quote_lines(con, path, rows)
    if swallowed:
        notes.append(
            f"data row {rows} opens a quoted cell that is never closed: the reader took the "
            f"remaining {swallowed} lines of the file into that cell, so their rows were not "
            "read (close the quote, or write a quote inside a quoted cell as two quotes)"
        )
    return layout, AgentRows(rows, unique, bad, rejected + swallowed, notes)


def _open_quote_lines(con: duckdb.DuckDBPyConnection, path: Path, rows: int) -> int:
    """Lines swallowed by a quote left open: the line breaks inside the last row's cells,
    when the file's last line has no quote to close them (the closing quote of a proper
    multi-line cell is on its last line). 0 when there is none."""
    if rows == 0:
        return 0
    found = con.execute(
        f"SELECT nl FROM {AGENT_TABLE} WHERE nl IS NOT NULL AND rn = {rows - 1}"
    ).fetchone()
    if found is None or _last_line_quoted(path):
        return 0
    return int(found[0])


def _last_line_quoted(path: Path, window: int = 1 << 16) -> bool:
    """Whether the last non-blank line holds a quote (True when it is longer than
    ``window`` bytes: unknown, so no claim is made)."""
    with path.open("rb") as handle:
        handle.seek(0, 2)
        handle.seek(max(0, handle.tell() - window))
        tail = handle.read().rstrip(b"\r\n \t")
    start = tail.rfind(b"\n")
    return start < 0 or b'"' in tail[start + 1 :]


def _uncast_sql(layout: AgentLayout) -> tuple[list[str], str]:
    """The flag words ``w0..`` (bit ``j``: cell ``j`` is not null but did not cast) and
    ``u``, the raw texts of such cells, built from the words only on rows that have one
    (evaluating the per-cell tests once, for the words, is what keeps this cheap)."""
    if not layout.values:
        return [], "CAST(NULL AS VARCHAR) AS u"
    words = []
    for word in range(len(layout.flag_words)):
        bits = [
            f"CASE WHEN v{j} IS NULL AND s{j} IS NOT NULL THEN {1 << (j % FLAG_BITS)} ELSE 0 END"
            for j in layout.values.values()
            if j // FLAG_BITS == word
        ]
        words.append(f"CAST({' + '.join(bits)} AS BIGINT) AS w{word}")
    any_flag = " OR ".join(f"{word} <> 0" for word in layout.flag_words)
    texts = ", ".join(f"CASE WHEN {flag_test('', j)} THEN s{j} END" for j in layout.values.values())
    return words, f"CASE WHEN {any_flag} THEN CAST(to_json([{texts}]) AS VARCHAR) END AS u"


def _store(con: duckdb.DuckDBPyConnection, rows_sql: str, scratch: Path) -> None:
    """Write the parsed rows to ``scratch`` in file order and read them back as ``agent``."""
    target = quote_literal(str(scratch))
    con.execute(f"COPY ({rows_sql}) TO {target} ({_SCRATCH_FORMAT})")
    con.execute(
        f"CREATE VIEW {AGENT_TABLE} AS SELECT * EXCLUDE (file_row_number), "
        f"file_row_number AS rn FROM read_parquet({target}, file_row_number = true)"
    )


def _agent_rows_sql(
    path: Path,
    header: OutputHeader,
    spec: EvaluationSpec,
    truth: TruthTable,
    options: ScoreOptions,
    layout: AgentLayout,
    *,
    parallel: bool = True,
) -> str:
    rule = options.null_tokens
    cells, typed, ok_parts, final = [], [], [], []
    for index, name in enumerate(spec.key_columns):
        column = truth.columns[name]
        raw = f"c{header.positions[name]}"
        cells.append(f"{agent_cell(raw, column.kind, rule)} AS r{index}")
        typed.append(f"{agent_key(f'r{index}', column.kind, column.sql_type)} AS k{index}")
        typed.append(f"r{index}")
        ok_parts.append(f"(r{index} IS NULL OR k{index} IS NOT NULL)")
        final.append(f"k{index}")
    final.append("key_ok")
    raw_keys = ", ".join(f"r{index}" for index in range(layout.key_count))
    final.append(f"CASE WHEN key_ok THEN NULL ELSE CAST(to_json([{raw_keys}]) AS VARCHAR) END AS b")
    for name, j in layout.values.items():
        kind = truth.columns[name].kind
        cells.append(f"{agent_cell(f'c{header.positions[name]}', kind, rule)} AS s{j}")
        typed.append(f"{agent_value(f's{j}', kind)} AS v{j}")
        typed.append(f"s{j}")
        final.append(f"v{j}")
    words, texts = _uncast_sql(layout)
    final.extend([texts, *layout.flag_words])
    # Every CSV column must be read: DuckDB 1.4.1 fails internally when rejected lines
    # are stored while some columns are skipped. ``nl`` reads them all (on a padded row).
    cells.append(f"{_open_quote_sql(len(header.names))} AS nl")
    typed.append("nl")
    final.append("nl")
    return (
        f"SELECT {', '.join(final)} FROM ("
        f"SELECT *, {', '.join([' AND '.join(ok_parts) + ' AS key_ok', *words])} FROM ("
        f"SELECT {', '.join(typed)} FROM ("
        f"SELECT {', '.join(cells)} FROM {_read_csv(path, header, options, parallel)} "
        f"WHERE {_has_content_sql(len(header.names))})))"
    )


def _has_content_sql(columns: int) -> str:
    """SQL true for a row with content: a line of white space alone is no row (a CSV
    reader skips it as it skips an empty line); a line of commas alone is a row."""
    others = " OR ".join(f"c{index} IS NOT NULL" for index in range(1, columns))
    blank = "c0 IS NULL OR trim(c0, ' ' || chr(9) || chr(13)) <> ''"
    return f"({blank}{' OR ' + others if others else ''})"


def _open_quote_sql(columns: int) -> str:
    """SQL for the line breaks inside a row's cells where a quote left open would put them,
    else NULL. Such a cell runs to the end of the file, so it is the row's last cell, or
    the cells after it are missing (padded): only those cells are searched, which keeps
    ordinary rows cheap."""
    last = f"c{columns - 1}"
    every = f"concat({', '.join(f'c{index}' for index in range(columns))})"

    def breaks(text: str) -> str:
        return f"nullif(strlen({text}) - strlen(replace({text}, chr(10), '')), 0)"

    return (
        f"CASE WHEN {last} IS NULL THEN {breaks(every)} "
        f"WHEN contains({last}, chr(10)) THEN {breaks(last)} END"
    )


def _read_csv(path: Path, header: OutputHeader, options: ScoreOptions, parallel: bool) -> str:
    columns = ", ".join(f"'c{index}': 'VARCHAR'" for index in range(len(header.names)))
    return (
        f"read_csv({quote_literal(str(path))}, columns = {{{columns}}}, header = true, "
        "auto_detect = false, delim = ',', quote = '\"', escape = '\"', "
        "null_padding = true, strict_mode = false, ignore_errors = true, "
        f"store_rejects = true, rejects_limit = {REJECTS_RECORDED}, "
        f"max_line_size = {options.max_line_bytes}, encoding = 'utf-8', "
        f"skip = {header.skip_lines}, "
        f"parallel = {str(parallel).lower()})"
    )


def _create_repeats(con: duckdb.DuckDBPyConnection, layout: AgentLayout) -> int:
    """Table ``agent_repeats``: castable keys seen more than once, with their first row.

    One grouping pass; returns how many rows repeat an earlier key.
    """
    keys = ", ".join(layout.keys)
    con.execute(
        f"CREATE TABLE {_REPEATS} AS SELECT {keys}, min(rn) AS keep, count(*) AS n "
        f"FROM {AGENT_TABLE} WHERE key_ok GROUP BY {keys} HAVING count(*) > 1"
    )
    (repeated,) = _fetch_ints(con, f"SELECT coalesce(sum(n - 1), 0) FROM {_REPEATS}")
    return repeated


def _create_first_rows(
    con: duckdb.DuckDBPyConnection, layout: AgentLayout, *, deduplicate: bool
) -> None:
    """Define ``agent_first``: castable-key rows, later repeats of a key left out."""
    # The narrowest types that hold them: this view is the join's hash table payload.
    flags = [
        f"CAST(a.{word} AS {_flag_type(len(layout.values) - index * FLAG_BITS)}) AS {word}"
        for index, word in enumerate(layout.flag_words)
    ]
    slim = ", ".join(
        ["CAST(a.rn AS INTEGER) AS rn", *[f"a.{name}" for name in layout.keys], *flags]
        + [f"a.v{j}" for j in layout.values.values()]
    )
    rows = f"SELECT {slim} FROM {AGENT_TABLE} a"
    if not deduplicate:
        con.execute(f"CREATE VIEW {FIRST_TABLE} AS {rows} WHERE a.key_ok")
        return
    same_key = " AND ".join(f"a.{key} IS NOT DISTINCT FROM r.{key}" for key in layout.keys)
    con.execute(
        f"CREATE VIEW {FIRST_TABLE} AS {rows} LEFT JOIN {_REPEATS} r ON {same_key} "
        "WHERE a.key_ok AND (r.keep IS NULL OR a.rn = r.keep)"
    )


def _flag_type(columns: int) -> str:
    """The smallest unsigned integer type for a flag word over ``columns`` columns."""
    bits = min(columns, FLAG_BITS)
    return next(name for size, name in _UNSIGNED if bits <= size)


_UNSIGNED = ((8, "UTINYINT"), (16, "USMALLINT"), (32, "UINTEGER"), (64, "UBIGINT"))


def _reject_notes(con: duckdb.DuckDBPyConnection, errors: int) -> list[str]:
    kinds = con.execute(
        "SELECT error_type, count(DISTINCT line), min(line) FROM reject_errors "
        "GROUP BY error_type ORDER BY error_type"
    ).fetchall()
    notes = [
        f"{count} lines skipped: {kind} (first at line {first})" for kind, count, first in kinds
    ]
    if errors >= REJECTS_RECORDED:
        notes.append(f"only the first {REJECTS_RECORDED} reader errors were recorded")
    return notes


def _fetch_ints(con: duckdb.DuckDBPyConnection, sql: str) -> tuple[int, ...]:
    row = con.execute(sql).fetchone()
    assert row is not None
    return tuple(int(value) for value in row)
