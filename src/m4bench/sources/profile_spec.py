"""The query shapes a source profile is made of (see ``m4bench.sources.profile``)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class QuirkDetector:
    """A quirk and the SQL that measures it: one row ``(numerator, denominator)``.

    ``tables`` are the qualified tables the SQL reads; without them it is skipped.
    """

    name: str
    description: str
    tables: tuple[str, ...]
    sql: str


@dataclass(frozen=True)
class ItemQuery:
    """How to list the items of one event table.

    ``sql`` returns ``(key, rows, numeric_rows, min, max)`` per item; ``label_sql``
    optionally maps keys to labels ``(key, label)`` from a dictionary table.
    """

    table: str
    key: str
    value: str
    sql: str
    label_sql: str | None = None
