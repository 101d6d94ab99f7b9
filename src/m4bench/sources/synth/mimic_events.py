"""Shared machinery of the per-chunk event generators: timelines and row collectors."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from m4bench.sources.synth.core import group_arange
from m4bench.sources.synth.mimic_cohort import HOUR
from m4bench.sources.synth.mimic_latent import StayState


@dataclass(frozen=True)
class Timeline:
    """Event times of many stays: ``stay`` indexes the chunk, ``hours`` is after intime."""

    stay: np.ndarray
    hours: np.ndarray
    time: np.ndarray  # epoch seconds

    def __len__(self) -> int:
        return len(self.stay)

    def take(self, mask: np.ndarray) -> Timeline:
        return Timeline(self.stay[mask], self.hours[mask], self.time[mask])


def timeline(
    rng: np.random.Generator,
    state: StayState,
    mask: np.ndarray,
    start_h: np.ndarray | float,
    end_h: np.ndarray | float,
    step_h: float,
    off_hour: float,
) -> Timeline:
    """Regular charting every ``step_h`` hours from ``start_h`` to ``end_h`` (per stay).

    Times fall on whole hours counted from the hour after intime; a share ``off_hour``
    is moved to an odd minute.
    """
    n = len(state)
    start = np.broadcast_to(np.asarray(start_h, dtype=float), (n,))
    end = np.broadcast_to(np.asarray(end_h, dtype=float), (n,))
    idx = np.flatnonzero(mask & (end >= start))
    counts = (np.floor((end[idx] - start[idx]) / step_h) + 1).astype(np.int64)
    stay = np.repeat(idx, counts)
    hours = np.floor(start[stay]) + group_arange(counts) * step_h
    base = -(-state.intime // HOUR) * HOUR
    time = base[stay] + (hours * HOUR).astype(np.int64)
    odd = rng.random(len(stay)) < off_hour
    time[odd] += rng.integers(1, 60, int(odd.sum())) * 60
    return Timeline(stay, (time - state.intime[stay]) / HOUR, time)


def events_at(
    rng: np.random.Generator,
    intime: np.ndarray,
    counts: np.ndarray,
    start_h: np.ndarray,
    end_h: np.ndarray,
) -> Timeline:
    """``counts[i]`` events at random minutes, ``start_h`` to ``end_h`` after ``intime[i]``."""
    stay = np.repeat(np.arange(len(intime)), counts)
    hours = start_h[stay] + rng.random(len(stay)) * (end_h[stay] - start_h[stay])
    order = np.lexsort((hours, stay))
    stay, hours = stay[order], hours[order]
    time = intime[stay] + (np.round(hours * 60) * 60).astype(np.int64)
    return Timeline(stay, (time - intime[stay]) / HOUR, time)


def pick(rng: np.random.Generator, values: tuple[Any, ...], n: int) -> np.ndarray:
    return np.array(values, dtype=object)[rng.integers(0, len(values), n)]


def as_text(values: np.ndarray, decimals: int) -> pa.Array:
    """Numbers as MIMIC writes them in ``value`` ('86', '36.6')."""
    return pc.cast(pa.array(np.round(values, decimals)), pa.string())


@dataclass
class ChartRows:
    """Collects chartevents-shaped rows (stay index, time, itemid, value, valuenum, unit)."""

    stay: list[np.ndarray] = field(default_factory=list)
    time: list[np.ndarray] = field(default_factory=list)
    itemid: list[np.ndarray] = field(default_factory=list)
    value: list[pa.Array] = field(default_factory=list)
    valuenum: list[np.ndarray] = field(default_factory=list)
    unit: list[pa.Array] = field(default_factory=list)

    def numeric(
        self,
        tl: Timeline,
        itemid: int | np.ndarray,
        values: np.ndarray,
        unit: str | None,
        decimals: int = 1,
    ) -> None:
        rounded = np.round(values, decimals)
        self._add(tl, itemid, as_text(rounded, decimals), rounded, unit)

    def text(
        self,
        tl: Timeline,
        itemid: int,
        values: np.ndarray,
        valuenum: np.ndarray | None = None,
        unit: str | None = None,
    ) -> None:
        num = np.full(len(tl), np.nan) if valuenum is None else valuenum.astype(float)
        self._add(tl, itemid, pa.array(values, type=pa.string()), num, unit)

    def text_arrow(self, tl: Timeline, itemid: int, values: pa.Array) -> None:
        """Text rows whose values are already an Arrow string array (no unit, no number)."""
        self._add(tl, itemid, values, np.full(len(tl), np.nan), None)

    def _add(
        self,
        tl: Timeline,
        itemid: int | np.ndarray,
        value: pa.Array,
        valuenum: np.ndarray,
        unit: str | None,
    ) -> None:
        n = len(tl)
        if n == 0:
            return
        self.stay.append(tl.stay)
        self.time.append(tl.time)
        self.itemid.append(np.broadcast_to(np.asarray(itemid, dtype=np.int64), (n,)))
        self.value.append(value)
        self.valuenum.append(valuenum)
        self.unit.append(
            pa.nulls(n, pa.string())
            if unit is None
            else pa.array(np.full(n, unit, dtype=object), pa.string())
        )

    def __len__(self) -> int:
        return sum(len(s) for s in self.stay)

    def finish(self) -> dict[str, Any]:
        """Concatenate, sorted by stay, time and itemid."""
        if not self.stay:
            empty = np.zeros(0, dtype=np.int64)
            return {
                "stay": empty,
                "time": empty,
                "itemid": empty,
                "value": pa.array([], pa.string()),
                "valuenum": np.zeros(0),
                "unit": pa.array([], pa.string()),
            }
        stay = np.concatenate(self.stay)
        time = np.concatenate(self.time)
        itemid = np.concatenate(self.itemid)
        order = np.lexsort((itemid, time, stay))
        take = pa.array(order)
        return {
            "stay": stay[order],
            "time": time[order],
            "itemid": itemid[order],
            "value": pa.concat_arrays(self.value).take(take),
            "valuenum": np.concatenate(self.valuenum)[order],
            "unit": pa.concat_arrays(self.unit).take(take),
        }
