"""A run's output against the truth: the first disagreements per column, missing,
extra and duplicate keys, read from the row-level diff (``diff.parquet``) or, when the
run kept none, from the score's samples.

Truth values stay out unless asked for (``with_truth``): without it, the diff's
``<column>__truth`` columns are never selected and the keys of missing truth rows
(rows the agent did not produce, so known only from the truth) are only counted. A
disagreement then shows its key (the agent produced it) and the agent's value.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from m4bench.errors import M4BenchError
from m4bench.scoring import Score
from m4bench.scoring.diff import DIFF_LEADING_COLUMNS
from m4bench.sql import quote_ident, quote_literal

SAMPLE_ROWS = 10
"""Rows shown per column and per kind of key."""
_SUFFIXES = ("__truth", "__agent", "__match")

Key = dict[str, str | None]


@dataclass(frozen=True)
class Disagreement:
    """One disagreeing cell: its key, the agent's value, the truth's (None unless
    truth is shown), and the output's data row (1-based) when known."""

    key: Key
    agent: str | None
    truth: str | None = None
    agent_row: int | None = None


@dataclass
class ColumnDisagreements:
    column: str
    total: int
    rows: list[Disagreement] = field(default_factory=list)


@dataclass
class KeyRows:
    """Keys of one kind (missing, extra, duplicate): how many, and the first ones."""

    total: int
    rows: list[tuple[int | None, Key]] = field(default_factory=list)


@dataclass
class Disagreements:
    """What the page shows of the output against the truth; ``source`` says where it
    was read from."""

    source: str
    with_truth: bool
    columns: list[ColumnDisagreements]
    missing: KeyRows
    extra: KeyRows
    duplicate: KeyRows
    note: str = ""


def from_diff(path: Path, with_truth: bool, limit: int = SAMPLE_ROWS) -> Disagreements:
    """The disagreements in a row-level diff the scorer wrote."""
    relation = f"read_parquet({quote_literal(str(path))})"
    with duckdb.connect() as con:
        con.execute("SET threads TO 1")
        names = [
            str(row[0]) for row in con.execute(f"DESCRIBE SELECT * FROM {relation}").fetchall()
        ]
        if tuple(names[:2]) != DIFF_LEADING_COLUMNS:
            raise M4BenchError(
                f"{path}: not a row-level diff the scorer wrote (its first columns are "
                f"{', '.join(names[:2])})",
                hint="the run's diff.parquet was replaced; score the output again to rewrite it",
            )
        scored = [n[: -len("__agent")] for n in names if n.endswith("__agent")]
        keys = [n for n in names[2:] if not n.endswith(_SUFFIXES)]
        counts = dict(
            con.execute(f"SELECT status, count(*) FROM {relation} GROUP BY status").fetchall()
        )

        def key_rows(status: str) -> KeyRows:
            total = int(counts.get(status, 0))
            if status == "missing" and not with_truth:
                return KeyRows(total)
            listed = ", ".join(quote_ident(k) for k in keys)
            found = con.execute(
                f"SELECT agent_row, {listed} FROM {relation} WHERE status = ? "
                f"ORDER BY agent_row NULLS LAST LIMIT {int(limit)}",
                [status],
            ).fetchall()
            return KeyRows(
                total, [(row[0], dict(zip(keys, row[1:], strict=True))) for row in found]
            )

        columns = [_column(con, relation, name, keys, with_truth, limit) for name in scored]
        return Disagreements(
            source="diff.parquet",
            with_truth=with_truth,
            columns=columns,
            missing=key_rows("missing"),
            extra=key_rows("extra"),
            duplicate=key_rows("duplicate"),
        )


def _column(
    con: duckdb.DuckDBPyConnection,
    relation: str,
    name: str,
    keys: list[str],
    with_truth: bool,
    limit: int,
) -> ColumnDisagreements:
    match = quote_ident(f"{name}__match")
    where = f"WHERE status = 'mismatch' AND NOT coalesce({match}, false)"
    total = con.execute(f"SELECT count(*) FROM {relation} {where}").fetchone()
    truth = f", {quote_ident(name + '__truth')}" if with_truth else ""
    listed = ", ".join(quote_ident(k) for k in keys)
    found = con.execute(
        f"SELECT agent_row, {quote_ident(name + '__agent')}{truth}, {listed} FROM {relation} "
        f"{where} ORDER BY agent_row LIMIT {int(limit)}"
    ).fetchall()
    first_key = 3 if with_truth else 2
    rows = [
        Disagreement(
            key=dict(zip(keys, row[first_key:], strict=True)),
            agent=row[1],
            truth=row[2] if with_truth else None,
            agent_row=row[0],
        )
        for row in found
    ]
    return ColumnDisagreements(name, int(total[0]) if total else 0, rows)


def from_score(score: Score, with_truth: bool) -> Disagreements:
    """The disagreements the score kept as samples (the run kept no row-level diff)."""
    columns = [
        ColumnDisagreements(
            column.column,
            column.mismatched,
            [
                Disagreement(key=dict(m.key), agent=m.agent, truth=m.truth if with_truth else None)
                for m in column.mismatch_sample
            ],
        )
        for column in score.columns
    ]
    keys = score.keys
    missing = KeyRows(keys.missing_keys)
    if with_truth:
        missing.rows = [(None, dict(key)) for key in keys.missing_key_sample]
    return Disagreements(
        source="the score's samples",
        with_truth=with_truth,
        columns=columns,
        missing=missing,
        extra=KeyRows(keys.extra_keys, [(None, dict(key)) for key in keys.extra_key_sample]),
        duplicate=KeyRows(keys.duplicate_rows),
        note="the run kept no row-level diff: these are the samples its score recorded",
    )
