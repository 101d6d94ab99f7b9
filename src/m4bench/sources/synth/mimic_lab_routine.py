"""Routine hospital labs: the daily draws of ward days and the outpatient draws.

A routine draw is a chemistry panel and a blood count (one specimen each), with a
differential, a coagulation panel or a liver panel on some of them. Ward admissions get
one on admission and then one a day; ICU admissions get them on their days outside the
ICU. Outpatient draws fall outside every admission of the subject and carry no hadm_id.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from m4bench.sources.synth.core import QuirkRates, group_arange
from m4bench.sources.synth.mimic_cohort import DAY, HOUR, Admissions
from m4bench.sources.synth.mimic_events import Timeline
from m4bench.sources.synth.mimic_labs import LabRows, panel_values

DIFF_SHARE = 0.6  # routine draws with a differential
COAG_SHARE = 0.4
LIVER_SHARE = 0.35
REPEAT_SHARE = 0.3  # in-hospital draws followed by an afternoon chemistry panel
OUTPATIENT_DRAWS = 4.2  # mean outpatient draws per ward admission
OUTPATIENT_DAYS = (2.0, 540.0)  # how long before the admission they fall (days)
_SUBJECT_STRIDE = 10**11  # seconds; above every epoch second of the generated years


@dataclass(frozen=True)
class Draws:
    """Routine draws of a chunk: a timeline plus what the values depend on."""

    tl: Timeline
    cr: np.ndarray
    sev: np.ndarray
    hct_base: np.ndarray
    null_hadm: np.ndarray


def daily_times(
    rng: np.random.Generator, base: np.ndarray, start_h: np.ndarray, end_h: np.ndarray
) -> Timeline:
    """One draw at ``start_h`` and then one each morning until ``end_h`` (hours after base)."""
    span = np.maximum(end_h - start_h, 0.0)
    count = np.where(end_h >= start_h, 1 + np.floor(span / 24.0), 0).astype(np.int64)
    owner = np.repeat(np.arange(len(base)), count)
    k = group_arange(count)
    first = base[owner] + (start_h[owner] * HOUR).astype(np.int64)
    morning = (first // DAY + k) * DAY + rng.integers(4 * 60, 7 * 60, len(owner)) * 60
    time = np.where(k == 0, first, morning)
    keep = time <= base[owner] + (end_h[owner] * HOUR).astype(np.int64)
    owner, time = owner[keep], time[keep]
    return Timeline(owner, (time - base[owner]) / HOUR, time)


def routine_panels(
    rng: np.random.Generator, d: Draws, rows: LabRows, q: QuirkRates, repeat: bool = True
) -> None:
    """Chemistry and blood count on every draw; differential, coagulation, liver on some.

    With ``repeat``, some draws are followed by an afternoon chemistry panel (a new
    specimen 6-10 hours later, never past ``end``).
    """
    tl, m = d.tl, len(d.tl)
    if repeat:
        _afternoon_chemistry(rng, d, rows, q)
    platelets = rng.lognormal(np.log(240), 0.3, m) * (1 - 0.2 * d.sev)
    chem, cbc = panel_values(rng, d.sev, d.cr, platelets, np.zeros(m, bool), d.hct_base)
    rows.panel(rng, tl, chem, d.null_hadm, q)
    rows.panel(rng, tl, cbc, d.null_hadm, q)
    diff = rng.random(m) < DIFF_SHARE
    rows.panel(rng, tl.take(diff), _differential(rng, int(diff.sum())), d.null_hadm[diff], q)
    coag = rng.random(m) < COAG_SHARE
    k = int(coag.sum())
    inr = np.clip(rng.lognormal(np.log(1.1), 0.12, k) + 0.5 * d.sev[coag], 0.8, 6)
    rows.panel(
        rng,
        tl.take(coag),
        {51237: inr, 51274: inr * rng.uniform(11, 12.5, k), 51275: rng.normal(31, 5, k)},
        d.null_hadm[coag],
        q,
    )
    liver = rng.random(m) < LIVER_SHARE
    rows.panel(rng, tl.take(liver), _liver(rng, int(liver.sum())), d.null_hadm[liver], q)


def _afternoon_chemistry(rng: np.random.Generator, d: Draws, rows: LabRows, q: QuirkRates) -> None:
    again = np.flatnonzero(rng.random(len(d.tl)) < REPEAT_SHARE)
    later = rng.integers(6 * 60, 10 * 60, len(again)) * 60
    tl = Timeline(d.tl.stay[again], d.tl.hours[again] + later / HOUR, d.tl.time[again] + later)
    cr = d.cr[again] * rng.normal(1, 0.03, len(again))
    sev = d.sev[again]
    chem, _ = panel_values(rng, sev, cr, np.full(len(again), 200.0), np.zeros(len(again), bool),
                           d.hct_base[again])  # fmt: skip
    rows.panel(rng, tl, chem, d.null_hadm[again], q)


def _differential(rng: np.random.Generator, n: int) -> dict[int, np.ndarray]:
    neut = rng.uniform(45, 80, n)
    return {
        51256: neut,
        51244: (96 - neut) * rng.uniform(0.6, 0.8, n),
        51254: rng.uniform(3, 10, n),
        51200: rng.uniform(0, 4, n),
        51146: rng.uniform(0, 1.0, n),
    }


def _liver(rng: np.random.Generator, k: int) -> dict[int, np.ndarray]:
    return {
        50885: np.clip(rng.lognormal(np.log(0.6), 0.45, k), 0.1, 30),
        50861: rng.lognormal(np.log(25), 0.6, k),
        50878: rng.lognormal(np.log(28), 0.6, k),
        50863: rng.lognormal(np.log(85), 0.35, k),
        50862: np.clip(rng.normal(3.8, 0.45, k), 1.5, 5.2),
    }


def extra_items(rng: np.random.Generator, rows: LabRows, q: QuirkRates) -> None:
    """Items no task reads, added to the specimens already drawn (so those keep their values).

    Blood counts get RDW-SD; differentials their absolute counts (from the percentages
    and a white count) and immature granulocytes; liver panels direct and indirect
    bilirubin, LDH, CK and GGT on some; coagulation panels fibrinogen and D-dimer on some.
    """
    tl, spec, null = rows.specimens_with(51221)
    rows.add_items(rng, tl, spec, null, {52159: rng.normal(46, 4, len(spec))}, q)
    tl, spec, null = rows.specimens_with(51256)
    n = len(spec)
    wbc = rng.lognormal(np.log(8.5), 0.35, n)
    counts = {52075: 51256, 51133: 51244, 52074: 51254, 52073: 51200, 52069: 51146}
    diff = {a: wbc * rows.value_of(pct, spec) / 100 for a, pct in counts.items()}
    diff[52135] = np.where(rng.random(n) < 0.4, rng.uniform(0.1, 1.5, n), np.nan)
    rows.add_items(rng, tl, spec, null, diff, q)
    tl, spec, null = rows.specimens_with(50885)
    n = len(spec)
    bili = rows.value_of(50885, spec)
    direct = np.where(rng.random(n) < 0.3, bili * rng.uniform(0.2, 0.5, n), np.nan)

    def some(share: float, values: np.ndarray) -> np.ndarray:
        return np.where(rng.random(n) < share, values, np.nan)

    liver = {
        50883: direct,
        50884: bili - direct,
        50954: some(0.4, rng.lognormal(np.log(230), 0.45, n)),
        50910: some(0.3, rng.lognormal(np.log(150), 0.9, n)),
        50927: some(0.1, rng.lognormal(np.log(45), 0.8, n)),
    }
    rows.add_items(rng, tl, spec, null, liver, q)
    tl, spec, null = rows.specimens_with(51237)
    n = len(spec)
    coag = {
        51214: some(0.3, rng.normal(320, 90, n).clip(60, 900)),
        51196: some(0.05, rng.lognormal(np.log(900), 0.9, n)),
    }
    rows.add_items(rng, tl, spec, null, coag, q)


@dataclass(frozen=True)
class AdmissionWindows:
    """Every admission of the source sorted by subject and time, to test 'in hospital'."""

    subj: np.ndarray
    admit: np.ndarray
    disch: np.ndarray

    @staticmethod
    def of(a: Admissions) -> AdmissionWindows:
        order = np.lexsort((a.admittime, a.subj))
        return AdmissionWindows(a.subj[order], a.admittime[order], a.dischtime[order])

    def inside(self, subj: np.ndarray, time: np.ndarray) -> np.ndarray:
        """Whether each (subject, time) falls within one of the subject's admissions."""
        key = self.subj.astype(np.int64) * _SUBJECT_STRIDE + self.admit
        probe = subj.astype(np.int64) * _SUBJECT_STRIDE + time
        at = np.searchsorted(key, probe, side="right") - 1
        ok = at >= 0
        at = np.maximum(at, 0)
        hit: np.ndarray = ok & (self.subj[at] == subj) & (time <= self.disch[at])
        return hit


def outpatient_times(
    rng: np.random.Generator,
    admit: np.ndarray,
    subj: np.ndarray,
    windows: AdmissionWindows,
) -> Timeline:
    """Outpatient draws before each admission, none inside any admission of the subject."""
    n = len(admit)
    count = rng.poisson(OUTPATIENT_DRAWS, n)
    owner = np.repeat(np.arange(n), count)
    before = rng.uniform(*OUTPATIENT_DAYS, len(owner)) * DAY
    time = (admit[owner] - before.astype(np.int64)) // 60 * 60
    keep = ~windows.inside(subj[owner], time)
    owner, time = owner[keep], time[keep]
    order = np.lexsort((time, owner))
    owner, time = owner[order], time[order]
    return Timeline(owner, (time - admit[owner]) / HOUR, time)
