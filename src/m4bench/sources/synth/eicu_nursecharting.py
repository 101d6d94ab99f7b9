"""``eicu_crd.nursecharting``: vitals, temperature and both GCS label families as free text.

Rows are built in blocks (one label pair each), then merged and sorted by stay and
offset. Quirks: charting before unit admission, junk text, out-of-range GCS totals,
partial GCS charting times, duplicate rows at one offset, the 'Temperature (F)'
label and Fahrenheit numbers under the Celsius label, impossible vitals.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa

from m4bench.sources.synth import eicu_vocab as v
from m4bench.sources.synth.eicu_cohort import EicuCohort
from m4bench.sources.synth.eicu_quirks import EicuQuirkRates
from m4bench.sources.synth.eicu_series import (
    gcs_at,
    gcs_components,
    number_text,
    overlay_text,
    pick,
    time_grid,
)

Triple = tuple[str, str, str]


@dataclass
class ChartRows:
    """Accumulates blocks of nursecharting rows before they are merged."""

    triples: list[Triple] = field(default_factory=list)
    owner: list[np.ndarray] = field(default_factory=list)
    offset: list[np.ndarray] = field(default_factory=list)
    kind: list[np.ndarray] = field(default_factory=list)
    value: list[np.ndarray] = field(default_factory=list)
    decimals: list[np.ndarray] = field(default_factory=list)
    text: list[np.ndarray] = field(default_factory=list)

    def add(
        self,
        triple: Triple,
        owner: np.ndarray,
        offset: np.ndarray,
        value: np.ndarray,
        decimals: int = 0,
        text: np.ndarray | None = None,
    ) -> None:
        if triple not in self.triples:
            self.triples.append(triple)
        kind = self.triples.index(triple)
        self.owner.append(owner)
        self.offset.append(offset)
        self.kind.append(np.full(owner.size, kind, dtype=np.int64))
        self.value.append(value.astype(np.float64))
        self.decimals.append(np.full(owner.size, decimals, dtype=np.int64))
        self.text.append(np.full(owner.size, None, dtype=object) if text is None else text)

    def columns(self, cohort: EicuCohort, rng: np.random.Generator) -> dict[str, Any]:
        owner = np.concatenate(self.owner)
        offset = np.concatenate(self.offset)
        kind = np.concatenate(self.kind)
        order = np.lexsort((kind, offset, owner))
        owner, offset, kind = owner[order], offset[order], kind[order]
        numbers = number_text(
            np.concatenate(self.value)[order], np.concatenate(self.decimals)[order]
        )
        text = overlay_text(numbers, np.concatenate(self.text)[order])
        table = np.array(self.triples, dtype=object)
        delay = rng.integers(0, 40, owner.size) + 180 * (rng.random(owner.size) < 0.02)
        return {
            "patientunitstayid": cohort.stay_id[owner],
            "nursingchartoffset": offset,
            "nursingchartentryoffset": offset + delay,
            "nursingchartcelltypecat": pa.array(table[kind, 0], type=pa.string()),
            "nursingchartcelltypevallabel": pa.array(table[kind, 1], type=pa.string()),
            "nursingchartcelltypevalname": pa.array(table[kind, 2], type=pa.string()),
            "nursingchartvalue": text,
        }


def nursecharting(
    cohort: EicuCohort, rng: np.random.Generator, quirks: EicuQuirkRates
) -> dict[str, Any]:
    """All nursecharting columns except ``nursingchartid`` for one chunk."""
    rows = ChartRows()
    end = cohort.los_minutes
    owner, offset = time_grid(rng, cohort.chart_start, end, 60)
    _vitals(rows, cohort, rng, quirks, owner, offset)
    _blood_pressure(rows, cohort, rng, quirks, owner, offset)
    t_owner, t_offset = time_grid(rng, cohort.chart_start, end, 240)
    _temperature(rows, cohort, rng, quirks, t_owner, t_offset)
    _gcs(rows, cohort, rng, quirks)
    pain = rng.integers(0, 11, t_owner.size)
    rows.add((v.CAT_SCORES, *v.PAIN), t_owner, t_offset + 3, pain)
    return rows.columns(cohort, rng)


def _noisy(
    rows: ChartRows,
    rng: np.random.Generator,
    quirks: EicuQuirkRates,
    triple: Triple,
    owner: np.ndarray,
    offset: np.ndarray,
    value: np.ndarray,
    decimals: int = 0,
    absurd: tuple[float, ...] = (),
    score_floor: float | None = None,
    banded: tuple[EicuCohort, str] | None = None,
) -> None:
    """Add a block with junk text, impossible values and duplicates at the quirk rates.

    A duplicate repeats its row at the same offset with a slightly different value; for
    scores (``score_floor`` set) it is the same or one point lower, never below the floor.
    With ``banded`` (the cohort and a signal), ``value`` is first shaped onto the bands of
    the chunk's engineered stays, and so are the duplicates.
    """
    if banded is not None:
        value = banded[0].targets.shape(banded[1], owner, offset / 60, value)
    text = np.full(owner.size, None, dtype=object)
    junk = rng.random(owner.size) < quirks.chart_junk
    text[junk] = pick(rng, v.CHART_JUNK, int(junk.sum()))
    if absurd:
        bad = rng.random(owner.size) < quirks.vital_out_of_range
        value = np.where(bad, np.array(absurd)[rng.integers(0, len(absurd), owner.size)], value)
    rows.add(triple, owner, offset, value, decimals, text)
    dup = rng.random(owner.size) < quirks.chart_duplicate
    if score_floor is None:
        again = value[dup] + rng.normal(0, 2.0, int(dup.sum()))
    else:
        lower = value[dup] - (rng.random(int(dup.sum())) < 0.3)
        again = np.maximum(lower, np.minimum(value[dup], score_floor))
    if banded is not None:
        again = banded[0].targets.shape(banded[1], owner[dup], offset[dup] / 60, again)
    rows.add(triple, owner[dup], offset[dup], again, decimals)


def _vitals(
    rows: ChartRows,
    cohort: EicuCohort,
    rng: np.random.Generator,
    quirks: EicuQuirkRates,
    owner: np.ndarray,
    offset: np.ndarray,
) -> None:
    s = cohort.severity
    n = cohort.n
    hr_base = 74 + 38 * s + rng.normal(0, 11, n)
    hr = hr_base[owner] + rng.normal(0, 8, owner.size)
    brady = (s[owner] > 0.5) & (rng.random(owner.size) < 0.004)
    hr = np.where(brady, rng.uniform(26, 33, owner.size), np.clip(hr, 30, 220))
    hr = np.round(cohort.targets.shape("heart_rate", owner, offset / 60, hr))
    _noisy(rows, rng, quirks, (v.CAT_VITALS, *v.HR), owner, offset, hr, absurd=(0, 300),
           banded=(cohort, "heart_rate"))  # fmt: skip
    tachypnoea = rng.random(n) < 0.04 + 0.2 * s
    rr_base = np.where(tachypnoea, rng.uniform(27, 42, n), 15 + 12 * s + rng.normal(0, 3, n))
    rr_sd = np.where(tachypnoea, 2.0, 3.5)[owner]
    rr = np.clip(rr_base[owner] + rng.normal(0, 1, owner.size) * rr_sd, 3, 58)
    rr = np.round(cohort.targets.shape("resp_rate", owner, offset / 60, rr))
    _noisy(rows, rng, quirks, (v.CAT_VITALS, *v.RR), owner, offset, rr, absurd=(0, 80),
           banded=(cohort, "resp_rate"))  # fmt: skip
    spo2 = np.clip(97.5 - 6 * s[owner] + rng.normal(0, 2, owner.size), 70, 100)
    rows.add((v.CAT_VITALS, *v.SPO2), owner, offset, np.round(spo2))


def _blood_pressure(
    rows: ChartRows,
    cohort: EicuCohort,
    rng: np.random.Generator,
    quirks: EicuQuirkRates,
    owner: np.ndarray,
    offset: np.ndarray,
) -> None:
    s = cohort.severity
    n = cohort.n
    map_base = 90 - 28 * s + rng.normal(0, 9, n)
    mean = np.clip(map_base[owner] + rng.normal(0, 8, owner.size), 15, 200)
    crash = (s[owner] > 0.55) & (rng.random(owner.size) < 0.01)
    mean = np.where(crash, rng.uniform(18, 50, owner.size), mean)
    hyper = rng.random(owner.size) < 0.004
    mean = np.where(hyper, rng.uniform(140, 175, owner.size), mean)
    mean = cohort.targets.shape("mbp", owner, offset / 60, mean)
    sys = mean + 30 + rng.normal(0, 6, owner.size)
    dia = (3 * mean - sys) / 2
    nibp = rng.random(owner.size) < 0.8
    o, t = owner[nibp], offset[nibp]
    rows.add((v.CAT_VITALS, *v.NIBP_SYS), o, t, np.round(sys[nibp]))
    rows.add((v.CAT_VITALS, *v.NIBP_DIA), o, t, np.round(dia[nibp]))
    _noisy(rows, rng, quirks, (v.CAT_VITALS, *v.NIBP_MEAN), o, t, mean[nibp], 0, absurd=(0, 300),
           banded=(cohort, "mbp"))  # fmt: skip
    art_line = (cohort.ventilated | cohort.vasopressor | (s > 0.6)) & (rng.random(n) < 0.75)
    family = rng.integers(0, 3, n)
    arterial = art_line[owner]
    ibp = np.maximum(mean - 3 + rng.normal(0, 4, owner.size), 5.0)
    decimals_share = rng.random(owner.size) < 0.1
    ibp = np.where(decimals_share, ibp + rng.random(owner.size) / 3, ibp)
    for fam, triple in enumerate(
        (
            (v.CAT_VITALS, *v.IBP_MEAN),
            (v.CAT_OTHER_VITALS, *v.MAP_VALUE),
            (v.CAT_OTHER_VITALS, *v.ART_MAP_VALUE),
        )
    ):
        pick_rows = arterial & (family[owner] == fam)
        o, t = owner[pick_rows], offset[pick_rows]
        _noisy(rows, rng, quirks, triple, o, t, ibp[pick_rows], 4, absurd=(0, 300),
               banded=(cohort, "mbp"))  # fmt: skip
        if fam == 0:
            rows.add((v.CAT_VITALS, *v.IBP_SYS), o, t, np.round(sys[pick_rows] - 2))
            rows.add((v.CAT_VITALS, *v.IBP_DIA), o, t, np.round(dia[pick_rows] - 2))


def _temperature(
    rows: ChartRows,
    cohort: EicuCohort,
    rng: np.random.Generator,
    quirks: EicuQuirkRates,
    owner: np.ndarray,
    offset: np.ndarray,
) -> None:
    n = cohort.n
    s = cohort.severity
    fever = np.where(rng.random(n) < 0.5, 2.2 * s, -2.0 * s**2)
    base = 36.9 + fever + rng.normal(0, 0.3, n)
    celsius = np.clip(base[owner] + rng.normal(0, 0.45, owner.size), 30.0, 42.5)
    celsius = cohort.targets.shape("temperature", owner, offset / 60, celsius)
    swap = rng.random(owner.size) < quirks.temperature_unit_swap
    banded = cohort.targets.window(owner, offset / 60, lambda need: "temperature" in need.values)
    swap &= ~banded  # an engineered stay's temperatures stay in the Celsius label's unit
    charted = np.where(swap, celsius * 9 / 5 + 32, celsius)
    _noisy(rows, rng, quirks, (v.CAT_VITALS, *v.TEMP_C), owner, offset, charted, 1,
           banded=(cohort, "temperature"))  # fmt: skip
    f_stay = rng.random(n) < quirks.temperature_f_label
    f_rows = f_stay[owner]
    fahrenheit = celsius[f_rows] * 9 / 5 + 32
    rows.add((v.CAT_VITALS, *v.TEMP_F), owner[f_rows], offset[f_rows], fahrenheit, 1)
    site = rng.random(owner.size) < 0.5
    sites = pick(rng, v.TEMPERATURE_SITES, int(site.sum()))
    rows.add(
        (v.CAT_VITALS, *v.TEMP_LOCATION), owner[site], offset[site], np.zeros(sites.size), 0, sites
    )


def _gcs(
    rows: ChartRows, cohort: EicuCohort, rng: np.random.Generator, quirks: EicuQuirkRates
) -> None:
    n = cohort.n
    charted = cohort.gcs_charted
    step = np.where(cohort.severity > 0.6, 120, 240)
    start = cohort.chart_start + rng.integers(0, 30, n)
    owner, offset = time_grid(rng, start, cohort.los_minutes, step)
    keep = charted[owner]
    owner, offset, at_edge = _with_window_edges(cohort, rng, owner[keep], offset[keep])
    intubated = (
        cohort.ventilated[owner]
        & (offset >= cohort.vent_start[owner])
        & (offset <= cohort.vent_end[owner])
        & (rng.random(owner.size) < 0.7)
    )
    trajectory = gcs_at(cohort, rng, owner, offset)
    trajectory = np.where(at_edge, np.clip(cohort.gcs_nadir[owner] - 1, 3, 15), trajectory)
    eyes, verbal, motor, total = gcs_components(rng, trajectory, intubated)
    uses_score = rng.random(n) < quirks.gcs_score_family
    only_score = uses_score & (rng.random(n) < 0.6)
    category = np.where(rng.random(n) < 0.85, v.CAT_SCORES, v.CAT_OTHER_VITALS)[owner]
    fam1 = ~only_score[owner]
    fam2 = uses_score[owner]
    partial = fam1 & (rng.random(owner.size) < quirks.gcs_partial)
    pattern = rng.integers(0, 3, owner.size)
    keep_total = fam1 & ~(partial & (pattern == 1))
    keep_comp = fam1 & ~(partial & (pattern == 0))
    dropped = np.where(partial & (pattern == 2), rng.integers(0, 3, owner.size), -1)
    for cat in (v.CAT_SCORES, v.CAT_OTHER_VITALS):
        here = category == cat
        _gcs_total(
            rows,
            rng,
            quirks,
            (cat, v.GCS_LABEL, v.GCS_TOTAL),
            here & keep_total,
            owner,
            offset,
            total,
        )
        for k, (name, values) in enumerate(
            ((v.GCS_MOTOR, motor), (v.GCS_VERBAL, verbal), (v.GCS_EYES, eyes))
        ):
            mask = here & keep_comp & (dropped != k)
            triple = (cat, v.GCS_LABEL, name)
            _noisy(
                rows, rng, quirks, triple, owner[mask], offset[mask], values[mask], score_floor=1
            )
        score = (cat, v.GCS_SCORE_LABEL, v.VALUE)
        _gcs_total(rows, rng, quirks, score, here & fam2, owner, offset + 1 * fam1, total)


EDGES = np.array([-361, -360, 0, 1440, 1441])
EDGE_SHARE = 0.08


def _with_window_edges(
    cohort: EicuCohort, rng: np.random.Generator, owner: np.ndarray, offset: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Add a GCS charting time exactly on (or one minute past) a task window edge.

    A share of the charted stays gets one extra time at -361, -360, 0, 1440 or 1441
    minutes, inside the stay's charting span and not on an existing time, where the
    patient is at their worst: whether the row counts decides the answer. Returns the
    merged times, sorted, and which of them are edge times.
    """
    n = cohort.n
    edge = EDGES[rng.integers(0, EDGES.size, n)]
    wanted = cohort.gcs_charted & (rng.random(n) < EDGE_SHARE)
    wanted &= (cohort.chart_start <= edge) & (cohort.los_minutes >= edge)
    stays = np.flatnonzero(wanted)
    shift = np.int64(1) << np.int64(32)
    taken = np.isin(stays * shift + edge[stays], owner * shift + offset)
    stays = stays[~taken]
    all_owner = np.concatenate([owner, stays])
    all_offset = np.concatenate([offset, edge[stays]])
    at_edge = np.r_[np.zeros(owner.size, dtype=bool), np.ones(stays.size, dtype=bool)]
    order = np.lexsort((all_offset, all_owner))
    return all_owner[order], all_offset[order], at_edge[order]


def _gcs_total(
    rows: ChartRows,
    rng: np.random.Generator,
    quirks: EicuQuirkRates,
    triple: Triple,
    mask: np.ndarray,
    owner: np.ndarray,
    offset: np.ndarray,
    total: np.ndarray,
) -> None:
    values = total[mask].astype(np.float64)
    bad = rng.random(values.size) < quirks.gcs_out_of_range
    values[bad] = np.array(v.GCS_OUT_OF_RANGE, dtype=np.float64)[
        rng.integers(0, len(v.GCS_OUT_OF_RANGE), int(bad.sum()))
    ]
    _noisy(rows, rng, quirks, triple, owner[mask], offset[mask], values, score_floor=3)
