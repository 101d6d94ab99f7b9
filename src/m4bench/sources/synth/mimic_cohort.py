"""Patients, admissions and ICU stays of the synthetic MIMIC-IV: who is in hospital when.

Everything here is a handful of numpy arrays covering the whole cohort (at full scale
about 365k patients, 546k admissions and 94k stays, a few tens of MB), drawn from
dedicated random streams. The event generators read these arrays chunk by chunk.
Times are epoch seconds (int64); ``-1`` stands for a missing time.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from m4bench.sources.synth.core import QuirkRates, group_arange, stream_rng, unique_ids
from m4bench.sources.synth.mimic_vocab import ADMISSION_TYPES_ICU, ADMISSION_TYPES_WARD, CAREUNITS

REAL_PATIENTS = 364_627
REAL_ADMISSIONS = 546_028
REAL_STAYS = 94_458
DEFAULT_STAYS = 1_000
HOUR = 3_600
DAY = 86_400
STREAM_COHORT = 1


@dataclass(frozen=True)
class Patients:
    subject_id: np.ndarray
    female: np.ndarray
    anchor_age: np.ndarray
    anchor_year: np.ndarray
    year_group: np.ndarray
    first_offset: np.ndarray  # first admission, seconds after 1 January of anchor_year


@dataclass(frozen=True)
class Admissions:
    subj: np.ndarray  # index into Patients
    hadm_id: np.ndarray
    admittime: np.ndarray
    dischtime: np.ndarray
    deathtime: np.ndarray  # -1 when alive at discharge
    admission_type: np.ndarray
    is_icu: np.ndarray
    organ_donor: np.ndarray
    source: np.ndarray  # position in the pre-donor ordering (-1 for donor admissions)

    def __len__(self) -> int:
        return len(self.hadm_id)


@dataclass(frozen=True)
class Stays:
    adm: np.ndarray  # index into Admissions
    subj: np.ndarray
    stay_id: np.ndarray
    intime: np.ndarray
    outtime: np.ndarray
    first_unit: np.ndarray  # index into CAREUNITS
    last_unit: np.ndarray
    severity: np.ndarray  # latent illness severity in [0, 1] at ICU admission
    died: np.ndarray  # the admission ends in death

    def __len__(self) -> int:
        return len(self.stay_id)


@dataclass(frozen=True)
class Cohort:
    patients: Patients
    admissions: Admissions
    stays: Stays
    dod: np.ndarray  # per patient: epoch day of death, -1 when unknown


def year_start(years: np.ndarray) -> np.ndarray:
    """Epoch seconds of 1 January of each year."""
    return (
        (years.astype(np.int64) - 1970)
        .astype("datetime64[Y]")
        .astype("datetime64[s]")
        .astype(np.int64)
    )


def _counts(n_groups: int, total: int, rng: np.random.Generator) -> np.ndarray:
    """At least one item per group, the rest spread at random (requires total >= n_groups)."""
    extra = np.bincount(rng.integers(0, n_groups, size=total - n_groups), minlength=n_groups)
    return 1 + extra


def _sizes(stays: int) -> tuple[int, int, int, int]:
    """(patients, admissions, ICU admissions, ICU patients) for a number of stays."""
    icu_adm = max(1, round(stays / 1.08))
    icu_subj = max(1, round(icu_adm / 1.3))
    patients = max(icu_subj + 1, round(stays * REAL_PATIENTS / REAL_STAYS))
    admissions = max(icu_adm + patients - icu_subj, round(stays * REAL_ADMISSIONS / REAL_STAYS))
    return patients, admissions, icu_adm, icu_subj


def _patients(rng: np.random.Generator, n: int) -> Patients:
    age = np.clip(np.round(rng.normal(63, 17, n)), 18, 95).astype(np.int64)
    age[age > 89] = 91
    return Patients(
        subject_id=unique_ids(rng, n, 10_000_000, 20_000_000),
        female=rng.random(n) < 0.45,
        anchor_age=age,
        anchor_year=rng.integers(2110, 2206, n),
        year_group=rng.integers(0, 5, n),
        first_offset=rng.integers(0, 2 * 365 * DAY // 60, n) * 60,
    )


def _pick(rng: np.random.Generator, table: tuple[tuple[str, float], ...], n: int) -> np.ndarray:
    names = np.array([name for name, _ in table], dtype=object)
    weights = np.array([w for _, w in table])
    return names[rng.choice(len(names), size=n, p=weights / weights.sum())]


def _admission_owners(
    rng: np.random.Generator, sizes: tuple[int, int, int, int], icu_died: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Subject index of each admission, its source index (< ICU admissions: an ICU plan).

    Within a subject admissions are in random order, except that an admission ending in
    death comes last.
    """
    n_pat, n_adm, n_icu_adm, n_icu_subj = sizes
    icu_subjects = np.sort(rng.choice(n_pat, size=n_icu_subj, replace=False))
    icu_owner = np.repeat(icu_subjects, _counts(n_icu_subj, n_icu_adm, rng))
    ward_only = np.setdiff1d(np.arange(n_pat), icu_subjects)
    n_ward = n_adm - n_icu_adm
    extra = rng.integers(0, n_pat, size=n_ward - len(ward_only))
    ward_owner = np.concatenate([ward_only, extra])
    owner = np.concatenate([icu_owner, ward_owner])
    dies = np.concatenate([icu_died, rng.random(n_ward) < 0.01])
    order = np.lexsort((rng.random(len(owner)) + 2.0 * dies, owner))
    return owner[order], order, dies[order]


@dataclass(frozen=True)
class _StayPlan:
    """Per-ICU-admission layout of its stays, relative to the admission time (seconds)."""

    per_adm: np.ndarray
    severity: np.ndarray  # per stay, in [0, 1]
    rel_in: np.ndarray
    rel_out: np.ndarray
    last_out: np.ndarray  # per admission
    post: np.ndarray
    died: np.ndarray


def _plan_icu(
    rng: np.random.Generator, n_icu_adm: int, n_stays: int, quirks: QuirkRates
) -> _StayPlan:
    per_adm = _counts(n_icu_adm, n_stays, rng)
    adm_of = np.repeat(np.arange(n_icu_adm), per_adm)
    first = np.cumsum(per_adm) - per_adm
    k = group_arange(per_adm)
    severity = rng.beta(1.5, 3.0, n_stays)
    los = np.clip(rng.lognormal(np.log(1.9 * DAY), 0.8, n_stays), 0.25 * DAY, 45 * DAY)
    los *= 0.7 + 0.9 * severity
    pre = np.clip(rng.lognormal(np.log(8 * HOUR), 1.2, n_icu_adm), 10 * 60, 25 * DAY)
    early = rng.random(n_icu_adm) < quirks.icu_before_admission
    pre[early] = -rng.uniform(0.3 * HOUR, 6 * HOUR, int(early.sum()))
    gap = rng.uniform(1.2 * DAY, 6 * DAY, n_stays)
    step = np.where(k == 0, 0.0, gap + np.concatenate([[0.0], los[:-1]]))
    cum = np.cumsum(step)
    rel_in = cum - cum[first][adm_of] + pre[adm_of]
    rel_out = rel_in + los
    last_out = rel_out[np.cumsum(per_adm) - 1]
    worst = np.maximum.reduceat(severity, first)
    died = rng.random(n_icu_adm) < 0.02 + 0.6 * worst**2
    post = np.clip(rng.lognormal(np.log(3 * DAY), 0.8, n_icu_adm), 2 * HOUR, 40 * DAY)
    return _StayPlan(
        per_adm=per_adm,
        severity=severity,
        rel_in=_minutes(rel_in),
        rel_out=_minutes(rel_out),
        last_out=_minutes(last_out),
        post=_minutes(post),
        died=died,
    )


def _minutes(seconds: np.ndarray) -> np.ndarray:
    """Round to whole minutes (MIMIC times carry no seconds)."""
    return (np.round(seconds / 60) * 60).astype(np.int64)


def build_cohort(seed: int, n_stays: int, quirks: QuirkRates) -> Cohort:
    """The whole cohort for ``n_stays`` ICU stays, from the seed's cohort stream."""
    rng = stream_rng(seed, STREAM_COHORT, 0)
    sizes = _sizes(n_stays)
    n_pat, n_adm, n_icu_adm, _ = sizes
    patients = _patients(rng, n_pat)
    plan = _plan_icu(rng, n_icu_adm, n_stays, quirks)
    owner, src, dies = _admission_owners(rng, sizes, plan.died)
    is_icu = src < n_icu_adm
    icu_j = np.where(is_icu, src, 0)
    is_last = np.r_[owner[1:] != owner[:-1], True]
    died = is_last & dies
    span, death_rel = _spans(rng, plan, is_icu, icu_j, died)
    admit = _admit_times(rng, patients, owner, span)
    disch = admit + span
    death = np.where(died, admit + death_rel, -1)
    typo = died & (rng.random(n_adm) < quirks.deathtime_typo)
    death[typo] -= _minutes(rng.uniform(HOUR, 12 * HOUR, int(typo.sum())))
    adm_type = np.where(
        is_icu, _pick(rng, ADMISSION_TYPES_ICU, n_adm), _pick(rng, ADMISSION_TYPES_WARD, n_adm)
    )
    donor = died & (rng.random(n_adm) < quirks.organ_donor_admission)
    admissions = _with_donors(rng, owner, admit, disch, death, adm_type, is_icu, donor)
    stays = _stays(rng, plan, admissions, src, n_icu_adm)
    dod = _dod(rng, patients, admissions, stays)
    return Cohort(patients=patients, admissions=admissions, stays=stays, dod=dod)


def _spans(
    rng: np.random.Generator,
    plan: _StayPlan,
    is_icu: np.ndarray,
    icu_j: np.ndarray,
    died: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Admission length and (for deaths) time of death, relative to the admission time."""
    n = len(is_icu)
    ward = _minutes(np.clip(rng.lognormal(np.log(3 * DAY), 0.9, n), 4 * HOUR, 30 * DAY))
    last_out = plan.last_out[icu_j]
    post = plan.post[icu_j]
    in_icu = rng.random(n) < 0.7
    icu_death = np.where(
        in_icu,
        last_out - _minutes(rng.uniform(0, 20 * 60, n)),
        last_out + _minutes(post * rng.uniform(0.1, 1, n)),
    )
    icu_span = np.where(died, icu_death, last_out + post)
    span = np.where(is_icu, icu_span, ward)
    return span, span.copy()


def _admit_times(
    rng: np.random.Generator, patients: Patients, owner: np.ndarray, span: np.ndarray
) -> np.ndarray:
    """Admission times: per subject, consecutive admissions separated by gaps."""
    n = len(owner)
    first = np.r_[True, owner[1:] != owner[:-1]]
    gap = _minutes(rng.exponential(150 * DAY, n) + 6 * HOUR)
    quick = rng.random(n) < 0.03
    gap[quick] = _minutes(rng.uniform(HOUR, 6 * HOUR, int(quick.sum())))
    step = np.where(first, 0, gap + np.r_[0, span[:-1]])
    cum = np.cumsum(step)
    group_start = np.maximum.accumulate(np.where(first, np.arange(n), 0))
    start = year_start(patients.anchor_year[owner]) + patients.first_offset[owner]
    admit: np.ndarray = start + cum - cum[group_start]
    return admit


def _with_donors(
    rng: np.random.Generator,
    owner: np.ndarray,
    admit: np.ndarray,
    disch: np.ndarray,
    death: np.ndarray,
    adm_type: np.ndarray,
    is_icu: np.ndarray,
    donor: np.ndarray,
) -> Admissions:
    """Add the organ-donor admissions (opened after the death, LOS <= 0) and assign hadm_ids."""
    extra_admit = death[donor] + _minutes(rng.uniform(0.5 * HOUR, 3 * HOUR, int(donor.sum())))
    subj = np.concatenate([owner, owner[donor]])
    admittime = np.concatenate([admit, extra_admit])
    dischtime = np.concatenate([disch, death[donor]])
    deathtime = np.concatenate([death, death[donor]])
    types = np.concatenate(
        [adm_type, np.full(int(donor.sum()), "SURGICAL SAME DAY ADMISSION", dtype=object)]
    )
    icu = np.concatenate([is_icu, np.zeros(int(donor.sum()), bool)])
    flag = np.concatenate([np.zeros(len(owner), bool), np.ones(int(donor.sum()), bool)])
    src = np.concatenate([np.arange(len(owner)), np.full(int(donor.sum()), -1)])
    order = np.lexsort((admittime, subj))
    hadm = unique_ids(rng, len(subj), 20_000_000, 30_000_000)
    rng.shuffle(hadm)
    return Admissions(
        subj=subj[order],
        hadm_id=hadm,
        admittime=admittime[order],
        dischtime=dischtime[order],
        deathtime=deathtime[order],
        admission_type=types[order],
        is_icu=icu[order],
        organ_donor=flag[order],
        source=src[order],
    )


def _stays(
    rng: np.random.Generator, plan: _StayPlan, adm: Admissions, src: np.ndarray, n_icu_adm: int
) -> Stays:
    """ICU stays of every ICU admission, placed relative to its admission time."""
    rows = np.flatnonzero(adm.is_icu)
    icu_j = src[adm.source[rows]]
    per = plan.per_adm[icu_j]
    first = (np.cumsum(plan.per_adm) - plan.per_adm)[icu_j]
    plan_index = np.repeat(first, per) + group_arange(per)
    adm_index = np.repeat(rows, per)
    n = len(plan_index)
    shares = np.array([share for _, share, _ in CAREUNITS])
    unit = rng.choice(len(CAREUNITS), size=n, p=shares / shares.sum())
    moved = rng.random(n) < 0.1
    last_unit = np.where(moved, rng.choice(len(CAREUNITS), size=n, p=shares / shares.sum()), unit)
    stay_id = unique_ids(rng, n, 30_000_000, 40_000_000)
    rng.shuffle(stay_id)
    return Stays(
        adm=adm_index,
        subj=adm.subj[adm_index],
        stay_id=stay_id,
        intime=adm.admittime[adm_index] + plan.rel_in[plan_index],
        outtime=adm.admittime[adm_index] + plan.rel_out[plan_index],
        first_unit=unit,
        last_unit=last_unit,
        severity=plan.severity[plan_index],
        died=adm.deathtime[adm_index] >= 0,
    )


def _dod(rng: np.random.Generator, patients: Patients, adm: Admissions, stays: Stays) -> np.ndarray:
    """Date of death per patient (epoch day), -1 when unknown.

    In-hospital deaths, or deaths within a year of the last discharge (later ones are censored).
    """
    n = len(patients.subject_id)
    dod = np.full(n, -1, dtype=np.int64)
    last_disch = np.full(n, np.iinfo(np.int64).min)
    np.maximum.at(last_disch, adm.subj, np.maximum(adm.dischtime, adm.admittime))
    icu_subject = np.zeros(n, bool)
    icu_subject[stays.subj] = True
    later = rng.random(n) < np.where(icu_subject, 0.25, 0.08)
    after = last_disch + _minutes(rng.uniform(DAY, 730 * DAY, n))
    keep = later & (after - last_disch <= 365 * DAY)
    dod[keep] = after[keep] // DAY
    dead = adm.deathtime >= 0
    dod[adm.subj[dead]] = adm.deathtime[dead] // DAY
    return dod
