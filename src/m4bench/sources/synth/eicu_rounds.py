"""Building blocks of the eICU documentation rows no task reads: rounds and labelled rows.

A *round* is a charting time grid over a subset of the stays (every ``step`` minutes
between per-stay start and end offsets). :class:`LabelledRows` gathers blocks of rows
that share a label key (for example a nursecharting category, label and name) and
assembles them into Arrow columns sorted by stay and offset. Text is built with Arrow
``take`` on small dictionaries, never by formatting Python strings row by row.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa

from m4bench.sources.synth.eicu_series import number_text, time_grid


def round_grid(
    rng: np.random.Generator,
    stays: np.ndarray,
    start: np.ndarray,
    end: np.ndarray,
    step: int | np.ndarray,
    off_hour: float = 0.2,
) -> tuple[np.ndarray, np.ndarray]:
    """``(owner, offset)`` every ``step`` minutes from ``start`` to ``end``, for ``stays`` only.

    ``stays`` is a boolean mask over the chunk's stays; ``start``, ``end`` and an array
    ``step`` are per stay of the whole chunk. Stays whose end precedes their start get
    no row; times moved off the grid stay inside ``start .. end``.
    """
    index = np.flatnonzero(stays & (end >= start))
    steps = step[index] if isinstance(step, np.ndarray) else step
    owner, offset = time_grid(rng, start[index], end[index], steps, off_hour)
    owner = index[owner]
    return owner, np.clip(offset, start[owner], end[owner])


def choice_text(
    rng: np.random.Generator,
    choices: tuple[str, ...],
    size: int,
    weights: tuple[float, ...] | None = None,
) -> pa.Array:
    """``size`` strings drawn from ``choices`` (uniformly, or by ``weights``)."""
    if weights is None:
        index = rng.integers(0, len(choices), size)
    else:
        p = np.asarray(weights, dtype=np.float64)
        index = rng.choice(len(choices), size=size, p=p / p.sum())
    return pa.array(choices, type=pa.string()).take(pa.array(index))


def indexed_text(choices: tuple[str, ...], index: np.ndarray) -> pa.Array:
    """``choices[index]`` as an Arrow string array."""
    return pa.array(choices, type=pa.string()).take(pa.array(index))


def measured(
    rng: np.random.Generator,
    centre: np.ndarray,
    spread: float,
    low: float,
    high: float,
    decimals: int = 0,
) -> pa.Array:
    """Numbers around ``centre`` (normal noise of sd ``spread``) clipped to [low, high], as text."""
    values = np.clip(centre + rng.normal(0.0, spread, centre.size), low, high)
    return number_text(values, decimals)


@dataclass
class LabelledRows:
    """Blocks of rows, each with one label key, one offset and one text value per row."""

    keys: list[tuple[str, ...]] = field(default_factory=list)
    owner: list[np.ndarray] = field(default_factory=list)
    offset: list[np.ndarray] = field(default_factory=list)
    kind: list[np.ndarray] = field(default_factory=list)
    text: list[pa.Array] = field(default_factory=list)

    def add(
        self, key: tuple[str, ...], owner: np.ndarray, offset: np.ndarray, text: pa.Array
    ) -> None:
        if len(text) != owner.size or offset.size != owner.size:
            raise ValueError(f"{key}: {owner.size} rows, {offset.size} offsets, {len(text)} values")
        if key not in self.keys:
            self.keys.append(key)
        self.owner.append(owner)
        self.offset.append(offset)
        self.kind.append(np.full(owner.size, self.keys.index(key), dtype=np.int64))
        self.text.append(text.cast(pa.string()))

    def assemble(self) -> tuple[np.ndarray, np.ndarray, list[pa.Array], pa.Array]:
        """Rows sorted by stay, offset and key: owners, offsets, key columns, values."""
        if not self.owner:
            empty = np.zeros(0, dtype=np.int64)
            return empty, empty, [], pa.array([], type=pa.string())
        owner = np.concatenate(self.owner)
        offset = np.concatenate(self.offset)
        kind = np.concatenate(self.kind)
        order = np.lexsort((kind, offset, owner))
        take = pa.array(order)
        width = len(self.keys[0])
        columns = [
            pa.array([k[i] for k in self.keys], type=pa.string()).take(pa.array(kind[order]))
            for i in range(width)
        ]
        values = pa.concat_arrays(self.text).take(take)
        return owner[order], offset[order], columns, values
