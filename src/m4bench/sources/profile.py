"""Profile a source: row counts, per-item counts and value ranges, quirk rates present.

Works on any source (synthetic, ingested real data, attached m4 databases): every
figure is a SQL query over the source catalog. Each quirk has a detector query that
returns ``(numerator, denominator)``; its rate is the share of the population named in
its description that carries the quirk. Detectors whose tables are missing are
reported as skipped. When the manifest records configured quirk rates
(the ``quirks`` parameter of a synthetic source) they are shown beside the
measured ones.
"""

from __future__ import annotations

import contextlib
import json

import duckdb
from pydantic import BaseModel, Field
from rich.progress import Progress

from m4bench.sources import profile_eicu, profile_mimic
from m4bench.sources.layout import Source
from m4bench.sources.profile_spec import ItemQuery, QuirkDetector


class TableCount(BaseModel):
    table: str
    rows: int


class ItemStat(BaseModel):
    """One item of an event table: how often it is charted and the range of its values."""

    key: str
    label: str | None = None
    rows: int
    numeric_rows: int = Field(description="rows whose value column is a number")
    min: float | None = None
    max: float | None = None


class ItemGroup(BaseModel):
    """The items of one event table, keyed by item id or label."""

    table: str
    key: str = Field(description="what identifies an item (e.g. itemid, labname)")
    value: str = Field(description="the value column the range is taken over")
    items: list[ItemStat]
    skipped: str | None = Field(default=None, description="why the items could not be listed")


class QuirkStat(BaseModel):
    name: str
    description: str
    numerator: int | None = None
    denominator: int | None = None
    rate: float | None = None
    configured: float | None = Field(default=None, description="rate the generator was asked for")
    skipped: str | None = Field(default=None, description="why the detector did not run")


class BinReach(BaseModel):
    """Rows of the source reaching one scoring bin of the task catalog."""

    family: str
    name: str
    reference: str
    rows: int | None = Field(description="None when the bin's predicate failed to run")
    engineered: list[str] = Field(
        default_factory=list, description="engineered states a synthetic source placed for it"
    )
    error: str | None = None


class SourceProfile(BaseModel):
    source: str
    dataset: str
    dataset_version: str
    kind: str
    tables: list[TableCount]
    items: list[ItemGroup]
    quirks: list[QuirkStat]
    bins: list[BinReach] = Field(
        default_factory=list, description="rows reaching each scoring bin (when counted)"
    )

    def quirk(self, name: str) -> QuirkStat:
        for stat in self.quirks:
            if stat.name == name:
                return stat
        raise KeyError(name)


def profile_source(source: Source, progress: bool = False) -> SourceProfile:
    """Measure ``source``; read-only."""
    con = source.connect(read_only=True)
    try:
        present = set(source.manifest.tables)
        steps = _item_queries(source.manifest.dataset)
        detectors = _detectors(source.manifest.dataset)
        with Progress(disable=not progress, transient=True) as bar:
            task = bar.add_task(f"profiling {source.name}", total=1 + len(steps) + len(detectors))
            tables = [
                TableCount(table=q, rows=_scalar(con, f"SELECT COUNT(*) FROM {q}"))
                for q in sorted(present)
            ]
            bar.advance(task)
            items = []
            for step in steps:
                if step.table in present:
                    items.append(_items(con, step, present))
                bar.advance(task)
            quirks = []
            for detector in detectors:
                quirks.append(_measure(con, detector, present, source.manifest.parameters))
                bar.advance(task)
    finally:
        con.close()
    return SourceProfile(
        source=source.name,
        dataset=source.manifest.dataset,
        dataset_version=source.manifest.dataset_version,
        kind=source.manifest.kind,
        tables=tables,
        items=items,
        quirks=quirks,
    )


def _scalar(con: duckdb.DuckDBPyConnection, sql: str) -> int:
    row = con.execute(sql).fetchone()
    return int(row[0]) if row and row[0] is not None else 0


def _items(con: duckdb.DuckDBPyConnection, step: ItemQuery, present: set[str]) -> ItemGroup:
    labels: dict[str, str] = {}
    if step.label_sql and _needs(step.label_sql, present):
        labels = {str(k): str(v) for k, v in con.execute(step.label_sql).fetchall()}
    try:
        rows = con.execute(step.sql).fetchall()
    except duckdb.Error as exc:
        failed = f"query failed: {str(exc).splitlines()[0]}"
        return ItemGroup(table=step.table, key=step.key, value=step.value, items=[], skipped=failed)
    stats = [
        ItemStat(
            key=str(key),
            label=labels.get(str(key)),
            rows=int(count),
            numeric_rows=int(numeric),
            min=_float(low),
            max=_float(high),
        )
        for key, count, numeric, low, high in rows
    ]
    return ItemGroup(table=step.table, key=step.key, value=step.value, items=stats)


def _float(value: object) -> float | None:
    """A number as float; anything else (NULL, text) as None."""
    try:
        return float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None


def _needs(sql: str, present: set[str]) -> bool:
    """Whether every ``schema.table`` the SQL names is present (schemas of both datasets)."""
    words = sql.replace("(", " ").replace(")", " ").replace(",", " ").split()
    named = {w for w in words if w.startswith(("mimiciv_", "eicu_crd."))}
    return named <= present


def configured_rates(parameters: dict[str, str | int | float | bool | None]) -> dict[str, float]:
    """Quirk rates a generator recorded: a ``quirks`` JSON object or ``quirk.<name>`` keys."""
    rates: dict[str, float] = {}
    blob = parameters.get("quirks")
    if isinstance(blob, str):
        with contextlib.suppress(ValueError):
            decoded = json.loads(blob)
            if isinstance(decoded, dict):
                rates.update(
                    {str(k): float(x) for k, x in decoded.items() if isinstance(x, int | float)}
                )
    for key, value in parameters.items():
        if key.startswith("quirk.") and isinstance(value, int | float):
            rates[key.removeprefix("quirk.")] = float(value)
    return rates


def _measure(
    con: duckdb.DuckDBPyConnection,
    detector: QuirkDetector,
    present: set[str],
    parameters: dict[str, str | int | float | bool | None],
) -> QuirkStat:
    stat = QuirkStat(
        name=detector.name,
        description=detector.description,
        configured=configured_rates(parameters).get(detector.name),
    )
    missing = [t for t in detector.tables if t not in present]
    if missing:
        stat.skipped = f"needs {', '.join(missing)}"
        return stat
    try:
        row = con.execute(detector.sql).fetchone()
    except duckdb.Error as exc:
        # a column of unexpected type or content in foreign data: report, keep going
        stat.skipped = f"query failed: {str(exc).splitlines()[0]}"
        return stat
    numerator = int(row[0] or 0) if row else 0
    denominator = int(row[1] or 0) if row else 0
    stat.numerator, stat.denominator = numerator, denominator
    stat.rate = numerator / denominator if denominator else None
    return stat


_ITEMS = {"eicu": profile_eicu.ITEM_QUERIES, "mimic-iv": profile_mimic.ITEM_QUERIES}
_DETECTORS = {"eicu": profile_eicu.DETECTORS, "mimic-iv": profile_mimic.DETECTORS}


def _item_queries(dataset: str) -> tuple[ItemQuery, ...]:
    return _ITEMS.get(dataset, ())


def _detectors(dataset: str) -> tuple[QuirkDetector, ...]:
    return _DETECTORS.get(dataset, ())
