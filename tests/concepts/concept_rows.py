"""Helpers for concept tests: insert dict rows, read tables back, build stays and times.

Import them in test modules with ``from concept_rows import at, stay``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

import duckdb

Row = Mapping[str, Any]


def insert_rows(con: duckdb.DuckDBPyConnection, table: str, rows: Sequence[Row]) -> None:
    """INSERT dict rows into a qualified table (missing columns are NULL)."""
    for row in rows:
        columns = ", ".join(f'"{c}"' for c in row)
        marks = ", ".join("?" for _ in row)
        con.execute(f"INSERT INTO {table} ({columns}) VALUES ({marks})", list(row.values()))


def fetch_rows(
    con: duckdb.DuckDBPyConnection, table: str, order_by: str | None = None
) -> list[dict[str, Any]]:
    """All rows of a table (``mimiciv_derived.`` implied for bare names) as dicts."""
    qualified = table if "." in table else f"mimiciv_derived.{table}"
    order = f" ORDER BY {order_by}" if order_by else " ORDER BY ALL"
    cursor = con.execute(f"SELECT * FROM {qualified}{order}")
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, values, strict=True)) for values in cursor.fetchall()]


T0 = datetime(2150, 1, 1, 8, 0, 0)


def at(hours: float = 0.0, base: datetime = T0) -> datetime:
    """A timestamp ``hours`` after the tests' common reference time (2150-01-01 08:00)."""
    return base + timedelta(hours=hours)


def stay(
    subject_id: int = 1,
    hadm_id: int = 10,
    stay_id: int = 100,
    intime: datetime = T0,
    los_hours: float = 72.0,
) -> dict[str, Any]:
    """An icustays row starting at ``intime``."""
    return {
        "subject_id": subject_id,
        "hadm_id": hadm_id,
        "stay_id": stay_id,
        "first_careunit": "Medical Intensive Care Unit (MICU)",
        "last_careunit": "Medical Intensive Care Unit (MICU)",
        "intime": intime,
        "outtime": intime + timedelta(hours=los_hours),
        "los": los_hours / 24,
    }


def chart(
    stay_id: int,
    itemid: int,
    when: float | datetime,
    valuenum: float | None = None,
    value: str | None = None,
    subject_id: int | None = None,
    storetime: datetime | None = None,
) -> dict[str, Any]:
    """A chartevents row; ``when`` is hours after T0 or a datetime; subject defaults to stay."""
    return {
        "subject_id": stay_id if subject_id is None else subject_id,
        "stay_id": stay_id,
        "itemid": itemid,
        "charttime": at(when) if isinstance(when, int | float) else when,
        "storetime": storetime,
        "valuenum": valuenum,
        "value": value if value is not None or valuenum is None else str(valuenum),
    }


def lab(
    subject_id: int,
    specimen_id: int,
    itemid: int,
    when: float | datetime,
    valuenum: float | None = None,
    value: str | None = None,
    hadm_id: int | None = None,
) -> dict[str, Any]:
    """A labevents row; ``when`` is hours after T0 or a datetime."""
    return {
        "labevent_id": specimen_id * 1000 + itemid % 1000,
        "subject_id": subject_id,
        "hadm_id": hadm_id,
        "specimen_id": specimen_id,
        "itemid": itemid,
        "charttime": at(when) if isinstance(when, int | float) else when,
        "valuenum": valuenum,
        "value": value if value is not None or valuenum is None else str(valuenum),
    }
