"""Value bands of the engineered stays of one chunk, and the shaping of drawn values.

The generators draw every value as usual; where a stay hosts a coverage need, the
values of a banded signal inside the need's window are mapped onto the band, keeping
their order: the lowest becomes the band's low end, the highest its high end (a single
value takes the middle). No random number is drawn, so nothing else changes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from m4bench.sources.synth.coverage_needs import Need

NeedTest = Callable[[Need], bool]
TOTALS = ("urine_24h",)  # signals banded by their sum over the first 24 hours
FIRST_DAY = (0.0, 24.0)


@dataclass(frozen=True)
class Bands:
    """One signal's bands: per engineered stay (chunk position) its band and window."""

    stay: np.ndarray
    low: np.ndarray
    high: np.ndarray
    start_h: np.ndarray
    end_h: np.ndarray


@dataclass(frozen=True)
class Targets:
    """The engineered stays of a chunk: their needs by chunk position, and the bands."""

    needs: Mapping[int, Need] = field(default_factory=dict)
    bands: Mapping[str, Bands] = field(default_factory=dict)

    @classmethod
    def of(cls, positions: Sequence[int], needs: Sequence[Need]) -> Targets:
        """Targets of the stays at ``positions`` (in the chunk) hosting ``needs``."""
        by_stay = {int(p): need for p, need in zip(positions, needs, strict=True)}
        bands: dict[str, list[tuple[int, float, float, float, float]]] = {}
        for stay, need in by_stay.items():
            for signal, (low, high) in need.values.items():
                window = FIRST_DAY if signal in TOTALS else need.hours
                bands.setdefault(signal, []).append((stay, low, high, *window))
        return cls(
            by_stay,
            {
                s: Bands(*(np.array(c) for c in zip(*rows, strict=True)))
                for s, rows in bands.items()
            },
        )

    def flag(self, n: int, test: NeedTest) -> np.ndarray:
        """A boolean per chunk stay: True where the hosted need satisfies ``test``."""
        out = np.zeros(n, dtype=bool)
        for stay, need in self.needs.items():
            out[stay] = test(need)
        return out

    def window(self, stay: np.ndarray, hours: np.ndarray, test: NeedTest) -> np.ndarray:
        """Rows (``stay``, ``hours``) inside the window of a need satisfying ``test``."""
        out = np.zeros(len(stay), dtype=bool)
        for host, need in self.needs.items():
            if test(need):
                out |= (stay == host) & (hours >= need.hours[0]) & (hours <= need.hours[1])
        return out

    def shape(
        self, signal: str, stay: np.ndarray, hours: np.ndarray, values: np.ndarray
    ) -> np.ndarray:
        """``values`` (rows of ``stay`` at ``hours``) with the banded rows mapped onto bands."""
        bands = self.bands.get(signal)
        if bands is None or len(values) == 0:
            return values
        out = np.asarray(values, dtype=float).copy()
        for k, host in enumerate(bands.stay):
            rows = np.flatnonzero(
                (stay == host) & (hours >= bands.start_h[k]) & (hours <= bands.end_h[k])
            )
            rows = rows[~np.isnan(out[rows])]
            if len(rows):
                out[rows] = onto(out[rows], float(bands.low[k]), float(bands.high[k]))
        return out

    def total(
        self, signal: str, stay: np.ndarray, hours: np.ndarray, values: np.ndarray
    ) -> np.ndarray:
        """``values`` scaled per banded stay so their sum inside the window is the band's middle."""
        bands = self.bands.get(signal)
        if bands is None or len(values) == 0:
            return values
        out = np.asarray(values, dtype=float).copy()
        for k, host in enumerate(bands.stay):
            # strictly inside the window: the rows on its edges count in some datasets only
            rows = (stay == host) & (hours > bands.start_h[k]) & (hours < bands.end_h[k])
            target = (float(bands.low[k]) + float(bands.high[k])) / 2
            current = out[rows].sum()
            count = int(rows.sum())
            if count:
                out[rows] = out[rows] * target / current if current > 0 else target / count
        return out


def onto(values: np.ndarray, low: float, high: float) -> np.ndarray:
    """``values`` mapped in order onto ``[low, high]`` (one distinct value: the middle)."""
    lo, hi = float(values.min()), float(values.max())
    if hi <= lo:
        return np.full(len(values), (low + high) / 2)
    return low + (values - lo) / (hi - lo) * (high - low)


NO_TARGETS = Targets()
