"""hosp.transfers: each admission's path ED -> ward(s) -> ICU -> ward(s) -> discharge.

Rows of one admission are contiguous: each row's ``outtime`` is the next row's
``intime``. The ED row (admissions through the ED) runs from ``edregtime`` to
``edouttime`` (the admission time). The first inpatient row is the ``'admit'`` event: a
ward from ``admittime``, or the ICU itself when the stay starts at or before
``admittime`` (ED boarding). Ward time is split into several wards (more the longer the
stay; about 0.34 moves a day). Each ICU stay is one ``'transfer'`` row whose
``transfer_id`` is the ``stay_id``, with the stay's ``intime``, ``outtime`` and
``first_careunit``; a stay whose ``last_careunit`` differs moves to that unit part-way.
The ``'discharge'`` row starts at ``dischtime`` with NULL ``careunit`` and ``outtime``.
Deaths in the ICU end the admission minutes before the ICU ``outtime``, as in the cohort.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from m4bench.sources.synth.core import group_arange, seconds_to_us, stream_rng, unique_ids
from m4bench.sources.synth.mimic_cohort import DAY, Cohort
from m4bench.sources.synth.mimic_vocab import CAREUNITS, WARD_UNITS

Columns = dict[str, Any]
STREAM_ADMIN = 2  # the stream of the other administrative tables (mimic_admin)
WARD_MOVES_PER_DAY = 0.34
MAX_WARD_MOVES = 6
UNKNOWN_UNIT_SHARE = 0.01
_ED, _INPATIENT, _DISCHARGE = 0, 1, 2


@dataclass
class _Rows:
    """Transfer rows under construction (parallel arrays)."""

    adm: np.ndarray
    rank: np.ndarray  # ED, inpatient or discharge
    unit: np.ndarray  # object array of careunit strings (None on discharge)
    t_in: np.ndarray
    t_out: np.ndarray  # -1 for NULL
    stay: np.ndarray  # stay index for the first row of an ICU stay, else -1

    @staticmethod
    def concat(parts: list[_Rows]) -> _Rows:
        return _Rows(
            *(np.concatenate([getattr(p, f) for p in parts]) for f in _Rows.__dataclass_fields__)
        )


def transfers_table(seed: int, cohort: Cohort, ed_in: np.ndarray, emergency: np.ndarray) -> Columns:
    """The transfers of every admission; ``ed_in`` and ``emergency`` as in admissions."""
    rng = stream_rng(seed, STREAM_ADMIN, 2)
    a = cohort.admissions
    n = len(a)
    ed = np.flatnonzero(emergency)
    parts = [
        _Rows(
            adm=ed,
            rank=np.full(len(ed), _ED),
            unit=np.full(len(ed), "Emergency Department", dtype=object),
            t_in=ed_in[ed],
            t_out=a.admittime[ed],
            stay=np.full(len(ed), -1),
        ),
        _ward_rows(rng, cohort),
        _icu_rows(rng, cohort),
        _Rows(
            adm=np.arange(n),
            rank=np.full(n, _DISCHARGE),
            unit=np.full(n, None, dtype=object),
            t_in=a.dischtime,
            t_out=np.full(n, -1),
            stay=np.full(n, -1),
        ),
    ]
    rows = _Rows.concat(parts)
    order = np.lexsort((rows.t_in, rows.rank, rows.adm))
    rows = _Rows(*(getattr(rows, f)[order] for f in _Rows.__dataclass_fields__))
    return _columns(rng, cohort, rows)


def _columns(rng: np.random.Generator, cohort: Cohort, rows: _Rows) -> Columns:
    a, s = cohort.admissions, cohort.stays
    inpatient = rows.rank == _INPATIENT
    first_inpatient = inpatient & np.r_[True, (rows.adm[1:] != rows.adm[:-1]) | ~inpatient[:-1]]
    names = np.array(["ED", "transfer", "discharge", "admit"], dtype=object)
    event = names[np.where(first_inpatient, 3, rows.rank)]
    is_stay = rows.stay >= 0
    n_other = int((~is_stay).sum())
    ids = unique_ids(rng, n_other + len(s), 30_000_000, 40_000_000)
    stays = np.sort(s.stay_id)
    taken = stays[np.minimum(np.searchsorted(stays, ids), len(stays) - 1)] == ids
    ids = ids[~taken][:n_other]  # sorted ids that are no stay_id
    rng.shuffle(ids)
    transfer_id = np.zeros(len(rows.adm), dtype=np.int64)
    transfer_id[is_stay] = s.stay_id[rows.stay[is_stay]]
    transfer_id[~is_stay] = ids
    return {
        "subject_id": cohort.patients.subject_id[a.subj[rows.adm]],
        "hadm_id": a.hadm_id[rows.adm],
        "transfer_id": transfer_id,
        "eventtype": event,
        "careunit": rows.unit,
        "intime": _ts(rows.t_in),
        "outtime": _ts(rows.t_out),
    }


def _ts(seconds: np.ndarray) -> np.ndarray:
    out = seconds_to_us(np.where(seconds < 0, 0, seconds))
    out[seconds < 0] = np.datetime64("NaT")
    return out


def _ward_blocks(cohort: Cohort) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(admission, start, end) of the ward time before, between and after ICU stays."""
    a, s = cohort.admissions, cohort.stays
    n = len(a)
    first_in = np.full(n, np.iinfo(np.int64).max)
    np.minimum.at(first_in, s.adm, s.intime)
    icu = first_in < np.iinfo(np.int64).max
    pre_end = np.where(icu, first_in, a.dischtime)
    pre = ~icu | (first_in > a.admittime)  # a non-ICU admission keeps its row even if LOS <= 0
    same_next = np.r_[s.adm[1:] == s.adm[:-1], False]
    post_end = np.where(same_next, np.r_[s.intime[1:], 0], a.dischtime[s.adm])
    post = post_end > s.outtime
    adm = np.concatenate([np.flatnonzero(pre), s.adm[post]])
    start = np.concatenate([a.admittime[pre], s.outtime[post]])
    end = np.concatenate([pre_end[pre], post_end[post]])
    return adm, start, end


def _ward_rows(rng: np.random.Generator, cohort: Cohort) -> _Rows:
    """Ward blocks split into consecutive wards, each ward other than the one before."""
    adm, start, end = _ward_blocks(cohort)
    span = np.maximum(end - start, 0)
    moves = np.minimum(rng.poisson(WARD_MOVES_PER_DAY * span / DAY), MAX_WARD_MOVES)
    moves[span < (moves + 1) * 600] = 0  # wards of at least 10 minutes
    pieces = moves + 1
    cut_block = np.repeat(np.arange(len(adm)), moves)
    frac = rng.random(len(cut_block))
    cut_order = np.lexsort((frac, cut_block))
    cuts = start[cut_block] + (frac[cut_order] * span[cut_block]).astype(np.int64)
    block = np.repeat(np.arange(len(adm)), pieces)
    k = group_arange(pieces)
    cut_first = np.cumsum(moves) - moves
    last = k == pieces[block] - 1
    t_in = np.where(k == 0, start[block], cuts[np.maximum(cut_first[block] + k - 1, 0)])
    t_out = np.where(last, end[block], cuts[np.minimum(cut_first[block] + k, len(cuts) - 1)])
    return _Rows(
        adm=adm[block],
        rank=np.full(len(block), _INPATIENT),
        unit=_ward_units(rng, block, k),
        t_in=t_in,
        t_out=t_out,
        stay=np.full(len(block), -1),
    )


def _ward_units(rng: np.random.Generator, block: np.ndarray, k: np.ndarray) -> np.ndarray:
    """A random first ward per block, then a walk to a different ward at each move."""
    units = np.array([u for u in WARD_UNITS if u != "UNKNOWN"], dtype=object)
    m = len(units)
    first = rng.integers(0, m, int(block.max(initial=-1)) + 1)
    step = np.where(k == 0, 0, rng.integers(1, m, len(block)))
    walk = np.cumsum(step)
    walk -= walk[np.flatnonzero(k == 0)][np.cumsum(k == 0) - 1]
    out: np.ndarray = units[(first[block] + walk) % m]
    out[rng.random(len(block)) < UNKNOWN_UNIT_SHARE] = "UNKNOWN"
    return out


def _icu_rows(rng: np.random.Generator, cohort: Cohort) -> _Rows:
    """One row per ICU stay in its first unit, a second in the last unit if it moved."""
    s = cohort.stays
    units = np.array([name for name, _, _ in CAREUNITS], dtype=object)
    moved = np.flatnonzero(s.last_unit != s.first_unit)
    split = s.intime[moved] + (
        rng.uniform(0.2, 0.8, len(moved)) * (s.outtime[moved] - s.intime[moved])
    ).astype(np.int64)
    first_out = s.outtime.copy()
    first_out[moved] = split
    return _Rows(
        adm=np.concatenate([s.adm, s.adm[moved]]),
        rank=np.full(len(s) + len(moved), _INPATIENT),
        unit=np.concatenate([units[s.first_unit], units[s.last_unit[moved]]]),
        t_in=np.concatenate([s.intime, split]),
        t_out=np.concatenate([first_out, s.outtime[moved]]),
        stay=np.concatenate([np.arange(len(s)), np.full(len(moved), -1)]),
    )
