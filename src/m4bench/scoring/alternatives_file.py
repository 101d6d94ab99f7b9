"""The admissible alternatives of a ground truth: what the file beside it holds.

``<key>.alternatives.parquet`` sits beside ``<key>.parquet`` when the reference depends
on a tie point (``m4bench.concepts.ties``) and some cell changes under another order of
it. It has the truth's columns, with the truth's types, and two more:

- ``__m4bench_tie_kind``: ``value``, a truth key whose row differs under some order
  (the row as that order gives it); ``added``, a key only that order gives (its row);
  ``absent``, a truth key that order does not give (the key only, values NULL);
- ``__m4bench_tie_order``: which orders give it (``<tie>=<order> + ...``), for readers.

Its footer names the truth it belongs to (row count and file size): an alternatives
file left beside a rebuilt truth is not used. ``register_alternatives`` makes it a view
once per truth, and notes which columns any alternative changes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import duckdb
from pydantic import BaseModel, ConfigDict, ValidationError

from m4bench.scoring.sqltypes import quote_ident, quote_literal
from m4bench.scoring.truth import TRUTH_VIEW, TruthTable
from m4bench.tasks.evaluation import EvaluationSpec

if TYPE_CHECKING:  # the scorer itself never needs pyarrow loaded
    import pyarrow as pa

ALTERNATIVES_SUFFIX = ".alternatives.parquet"
KIND_COLUMN = "__m4bench_tie_kind"
ORDER_COLUMN = "__m4bench_tie_order"
TieKind = Literal["value", "added", "absent"]
PAIRING_KEY = b"m4bench.tie_alternatives"
ALTERNATIVES_VIEW = "tie_alternatives"


class Pairing(BaseModel):
    """The truth file an alternatives file was computed for."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    truth_rows: int
    truth_bytes: int


def alternatives_path(truth: Path) -> Path:
    """Where the alternatives of ``truth`` are (``x.parquet`` -> ``x.alternatives.parquet``)."""
    return truth.with_name(truth.name.removesuffix(".parquet") + ALTERNATIVES_SUFFIX)


def with_pairing(table: pa.Table, truth: Path, truth_rows: int) -> pa.Table:
    """``table`` with the footer metadata naming ``truth`` (already written)."""
    pairing = Pairing(truth_rows=truth_rows, truth_bytes=truth.stat().st_size)
    metadata = dict(table.schema.metadata or {})
    metadata[PAIRING_KEY] = pairing.model_dump_json().encode()
    return table.replace_schema_metadata(metadata)


def paired_alternatives(
    con: duckdb.DuckDBPyConnection, truth: Path, truth_rows: int
) -> Path | None:
    """The alternatives file of ``truth`` when there is one computed for this very
    truth (same rows and size), else None."""
    path = alternatives_path(truth)
    if not path.is_file() or not truth.is_file():
        return None
    try:
        row = con.execute(
            f"SELECT value FROM parquet_kv_metadata({quote_literal(str(path))}) "
            f"WHERE key = {quote_literal(PAIRING_KEY.decode())}::BLOB"
        ).fetchone()
        if row is None:
            return None
        pairing = Pairing.model_validate_json(row[0])
    except (duckdb.Error, ValidationError):
        return None
    if pairing.truth_rows != truth_rows or pairing.truth_bytes != truth.stat().st_size:
        return None
    return path


@dataclass(frozen=True)
class TieAlternatives:
    """The registered alternatives: rows of each kind, and the columns whose value
    some alternative changes."""

    kinds: dict[str, int]
    differing: frozenset[str]

    def columns(self, names: Sequence[str]) -> list[str]:
        """The columns of ``names`` an alternative can change: those it changes, or
        all when some key only another order gives brings its whole row."""
        return list(names) if self.kinds.get("added") else [n for n in names if n in self.differing]


def register_alternatives(
    con: duckdb.DuckDBPyConnection, spec: EvaluationSpec, truth: TruthTable
) -> tuple[TieAlternatives | None, str | None]:
    """View ``ALTERNATIVES_VIEW`` over the truth's alternatives and what they hold; a
    note instead when a file is there but its columns do not fit the truth."""
    path = paired_alternatives(con, truth.path, truth.rows)
    if path is None:
        return None, None
    con.execute(
        f"CREATE OR REPLACE VIEW {ALTERNATIVES_VIEW} AS SELECT * FROM "
        f"read_parquet({quote_literal(str(path))})"
    )
    rows = con.execute(f"DESCRIBE {ALTERNATIVES_VIEW}").fetchall()
    described = {str(row[0]): str(row[1]) for row in rows}
    needed = list(dict.fromkeys([*spec.key_columns, *spec.scored_columns, *truth.ordered]))
    wrong = [n for n in needed if described.get(n) != truth.columns[n].sql_type]
    if KIND_COLUMN not in described or wrong:
        con.execute(f"DROP VIEW {ALTERNATIVES_VIEW}")
        return None, f"tie alternatives {path.name} not used: columns {wrong} differ from the truth"
    counted = f"SELECT {KIND_COLUMN}, count(*) FROM {ALTERNATIVES_VIEW} GROUP BY ALL"
    kinds = {str(kind): int(count) for kind, count in con.execute(counted).fetchall()}
    values = [n for n in needed if n not in spec.key_columns]
    return TieAlternatives(kinds, _differing(con, spec, values)), None


def _differing(
    con: duckdb.DuckDBPyConnection, spec: EvaluationSpec, names: list[str]
) -> frozenset[str]:
    """The columns of ``names`` whose value some ``value`` alternative changes."""
    if not names:
        return frozenset()
    keys = [quote_ident(k) for k in spec.key_columns]
    on = " AND ".join(f"t.{k} IS NOT DISTINCT FROM x.{k}" for k in keys)
    tests = ", ".join(
        f"bool_or(x.{quote_ident(n)} IS DISTINCT FROM t.{quote_ident(n)})" for n in names
    )
    row = con.execute(
        f"SELECT {tests} FROM {ALTERNATIVES_VIEW} x JOIN {TRUTH_VIEW} t ON {on} "
        f"WHERE x.{KIND_COLUMN} = 'value'"
    ).fetchone()
    return frozenset(n for n, changed in zip(names, row or (), strict=False) if changed)
