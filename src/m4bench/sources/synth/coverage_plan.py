"""Where the coverage needs go: one host stay per need in every block of stays.

Stays are split into blocks of at least :data:`BLOCK_STAYS` (a source smaller than
that is one block). Every block engineers each need of its dataset into one of its
stays, so the share of engineered stays is the same at every size and every seed gets
every need. At most one stay in ten of a block is engineered (:data:`MAX_SHARE`): a
block too small for every need takes the first ones of the file, a need no stay of a
block can hold (none long enough, say) is left out of it, and the source says which
needs (and so which bins) found no room anywhere.

A need's host is one of the block's stays long enough for the need's window, picked
among those whose latent severity lies in the need's range (else the closest), with
a random tie-break from the seed: the same seed and size give the same hosts.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from m4bench.sources.datasets import DATASETS, Dataset
from m4bench.sources.synth.coverage_needs import Need, dataset_needs

BLOCK_STAYS = 1_000
MAX_SHARE = 0.1  # at most one stay in ten of a block is engineered
NO_NEED = -1


@dataclass(frozen=True)
class Placement:
    """Which need each stay hosts (:data:`NO_NEED` for none), and the needs left out."""

    host_need: np.ndarray
    unplaced: tuple[Need, ...]

    def hosts(self, stays: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(positions within ``stays``, need indices) of the hosts among ``stays``."""
        need = self.host_need[stays]
        at = np.flatnonzero(need != NO_NEED)
        return at, need[at]


def minimum_stays(needs: Sequence[Need]) -> int:
    """The smallest block that holds every need."""
    return math.ceil(len(needs) / MAX_SHARE)


def block_edges(n: int) -> np.ndarray:
    """Start and end of each block of ``n`` stays: ``n // 1000`` blocks (at least one)."""
    count = max(1, n // BLOCK_STAYS)
    return np.linspace(0, n, count + 1).round().astype(np.int64)


def capacity(size: int) -> int:
    """How many needs a block of ``size`` stays holds."""
    return int(size * MAX_SHARE + 1e-9)


def place(
    needs: Sequence[Need],
    rng: np.random.Generator,
    severity: np.ndarray,
    length_h: np.ndarray,
    room_h: np.ndarray | None = None,
) -> Placement:
    """Hosts for ``needs`` among stays with these severities and lengths (hours).

    ``room_h``: per stay, how many hours lie between its ICU admission and the patient's
    previous discharge, zero for a stay that cannot host a need; without it, every stay
    can host a need but none one that asks for a long hospital stay before the ICU.
    """
    n = len(severity)
    room = np.full(n, np.inf) if room_h is None else room_h
    host_need = np.full(n, NO_NEED, dtype=np.int64)
    for start, end in itertools.pairwise(block_edges(n)):
        key = rng.random(int(end - start))
        free = np.ones(int(end - start), dtype=bool)
        for index, need in enumerate(needs[: capacity(int(end - start))]):
            fits = _fits(need, length_h[start:end], room[start:end]) & free
            if fits.any():  # else no stay of the block can hold it: left out here
                pick = _pick(need, severity[start:end], fits, key)
                free[pick] = False
                host_need[start + pick] = index
    placed = set(host_need[host_need != NO_NEED].tolist())
    return Placement(host_need, tuple(n for i, n in enumerate(needs) if i not in placed))


def _fits(need: Need, length_h: np.ndarray, room_h: np.ndarray) -> np.ndarray:
    """Stays long enough for the need's window, with a day more than the window's start
    since the patient's previous discharge (so no earlier stay's rows fall in it), and
    room for a long hospital stay before the ICU if the need asks for one."""
    before = 24 * need.pre_icu_days + 24 if need.pre_icu_days is not None else 0.0
    room = max(before, 24.0 - need.hours[0])
    out: np.ndarray = (length_h >= need.span_hours) & (room_h >= room)
    return out


def _pick(need: Need, severity: np.ndarray, fits: np.ndarray, key: np.ndarray) -> int:
    """The fitting (free) stay whose severity is closest to the need's range; then at random."""
    low, high = need.severity
    distance = np.maximum(low - severity, 0) + np.maximum(severity - high, 0)
    rank = np.lexsort((key, distance, ~fits))
    return int(rank[0])


def coverage_parameters(needs: Sequence[Need], unplaced: Sequence[Need]) -> dict[str, str | int]:
    """What the manifest records: needs placed and the names of those left out."""
    return {
        "coverage_needs": len(needs) - len(unplaced),
        "coverage_unplaced": ",".join(n.name for n in unplaced),
    }


def unplaced_note(dataset: str, stays: int, needs: Sequence[Need], unplaced: Sequence[Need]) -> str:
    """A sentence saying which needs, and so which bins, a too-small source lacks."""
    if not unplaced:
        return ""
    placed = {b for need in needs if need not in unplaced for b in need.bins}
    bins = sorted({b for need in unplaced for b in need.bins} - placed)
    label = DATASETS[dataset].label if dataset in DATASETS else dataset
    return (
        f"{stays:,} stays engineer {len(needs) - len(unplaced)} of the {len(needs)} rare "
        f"{label} states (at most one stay in ten; all fit from {minimum_stays(needs):,} "
        f"stays). Left out: {', '.join(n.name for n in unplaced)}; so these scoring bins "
        f"may stay empty: {', '.join(bins)}"
    )


def coverage_note(dataset: Dataset, parameters: Mapping[str, object]) -> str:
    """The note for a synthetic source's manifest parameters ("" when every need fits)."""
    left_out = set(str(parameters.get("coverage_unplaced") or "").split(",")) - {""}
    if not left_out:
        return ""
    needs = dataset_needs(dataset)
    stays = parameters.get("stays")
    count = stays if isinstance(stays, int) else 0
    return unplaced_note(dataset, count, needs, [n for n in needs if n.name in left_out])
