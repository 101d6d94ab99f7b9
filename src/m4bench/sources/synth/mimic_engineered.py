"""The engineered stays of the synthetic MIMIC-IV: coverage needs placed and applied.

:func:`place_needs` picks the host stays of the whole cohort (see ``coverage_plan``)
and applies the needs that concern the patient or the admission: age, chronic
conditions, a long hospital stay before the ICU. :func:`engineer_state` applies the
rest to a chunk's latent state: ventilation, renal replacement therapy, vasoactive
agents and room air, and the value bands the event generators shape their draws with
(``StayState.targets``). Hosts are ordinary stays of the cohort: every table is drawn
for them by the same generators.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from m4bench.sources.synth.core import stream_rng
from m4bench.sources.synth.coverage_needs import Need, dataset_needs
from m4bench.sources.synth.coverage_plan import Placement, place
from m4bench.sources.synth.mimic_cohort import DAY, HOUR, Cohort
from m4bench.sources.synth.mimic_latent import CONDITION_INDEX, StayState
from m4bench.sources.synth.shaping import Targets

STREAM_COVERAGE = 5
APART_DAYS = 10  # labs of another ICU stay reach 7 days before it (the KDIGO look-back)
AGENT_ITEMS = {
    "norepinephrine": 221906,
    "epinephrine": 221289,
    "dopamine": 221662,
    "dobutamine": 221653,
    "phenylephrine": 221749,
    "vasopressin": 222315,
    "milrinone": 221986,
}


def place_needs(seed: int, cohort: Cohort) -> Placement:
    """Hosts of every MIMIC-IV need; the patient and admission facts set for them."""
    needs = dataset_needs("mimic-iv")
    stays = cohort.stays
    length_h = (stays.outtime - stays.intime) / HOUR
    placement = place(
        needs, stream_rng(seed, STREAM_COVERAGE, 0), stays.severity, length_h, _room(cohort)
    )
    at, which = placement.hosts(np.arange(len(stays)))
    for stay, index in zip(at, which, strict=True):
        _patient_and_admission(cohort, int(stay), needs[int(index)])
    return placement


def _room(cohort: Cohort) -> np.ndarray:
    """Hours each stay's admission could start earlier: to the patient's previous discharge.

    Zero for the stays that cannot host a need: those that are not the first stay of their
    admission, start before its admission time, or have another ICU stay of their patient
    within :data:`APART_DAYS` (its labs, matched by patient, would fall in the window).
    """
    s, a = cohort.stays, cohort.admissions
    previous = np.full(len(a), np.iinfo(np.int64).min // 2)
    same = a.subj[1:] == a.subj[:-1]
    previous[1:][same] = a.dischtime[:-1][same]
    first = np.r_[True, s.adm[1:] != s.adm[:-1]]
    usable = first & (s.intime > a.admittime[s.adm]) & _apart(cohort)
    room = np.where(usable, s.intime - previous[s.adm], 0)
    return np.asarray(room / HOUR, dtype=float)


def _apart(cohort: Cohort) -> np.ndarray:
    """Stays with no other ICU stay of their patient within :data:`APART_DAYS`."""
    s = cohort.stays
    order = np.lexsort((s.intime, s.subj))
    subj, intime, outtime = s.subj[order], s.intime[order], s.outtime[order]
    same = subj[1:] == subj[:-1]
    gap = APART_DAYS * DAY
    near_next = np.r_[same & (intime[1:] - outtime[:-1] < gap), False]
    near_previous = np.r_[False, same & (intime[1:] - outtime[:-1] < gap)]
    out = np.empty(len(s), dtype=bool)
    out[order] = ~(near_next | near_previous)
    return out


def conditions_for_needs(cohort: Cohort, placement: Placement, conditions: np.ndarray) -> None:
    """Give each host's patient the chronic conditions its need names (in place)."""
    needs = dataset_needs("mimic-iv")
    at, which = placement.hosts(np.arange(len(cohort.stays)))
    for stay, index in zip(at, which, strict=True):
        for name in needs[int(index)].conditions:
            conditions[cohort.stays.subj[stay], CONDITION_INDEX[name]] = True


def _patient_and_admission(cohort: Cohort, stay: int, need: Need) -> None:
    if need.age is not None:
        cohort.patients.anchor_age[cohort.stays.subj[stay]] = need.age
    if need.pre_icu_days is not None:
        adm = cohort.stays.adm[stay]
        cohort.admissions.admittime[adm] = min(
            cohort.admissions.admittime[adm],
            cohort.stays.intime[stay] - int(need.pre_icu_days * DAY) // 60 * 60,
        )


def engineer_state(state: StayState, placement: Placement, stays: np.ndarray) -> StayState:
    """``state`` of the chunk's ``stays`` with its hosts' needs applied."""
    at, which = placement.hosts(stays)
    if len(at) == 0:
        return state
    needs = dataset_needs("mimic-iv")
    targets = Targets.of(at.tolist(), [needs[int(i)] for i in which])
    fields = {f.name: getattr(state, f.name) for f in dataclasses.fields(state)}
    latent = {k: np.array(v, copy=True) for k, v in fields.items() if k != "targets"}
    for position, need in targets.needs.items():
        _ventilation(latent, position, need)
        _renal(latent, position, need)
        _vasoactive(latent, position, need)
    return StayState(**latent, targets=targets)


def _ventilation(latent: dict[str, np.ndarray], i: int, need: Need) -> None:
    if need.ventilated is None and not need.room_air_flow and not need.niv:
        return
    on = bool(need.ventilated)
    latent["vent"][i] = on
    latent["trach"][i] = False
    latent["niv"][i] = bool(need.niv)
    latent["hfnc"][i] = False
    if need.room_air_flow:
        latent["oxygen"][i] = False
    if on:
        latent["vent_on"][i] = -1.5
        latent["vent_off"][i] = min(max(latent["vent_off"][i], need.span_hours), latent["los_h"][i])
        latent["art_line"][i] = True


def _renal(latent: dict[str, np.ndarray], i: int, need: Need) -> None:
    if need.rrt is None:
        return
    latent["crrt"][i] = need.rrt
    latent["ihd"][i] = latent["peritoneal"][i] = False
    if need.rrt:
        latent["aki_peak_h"][i] = 8.0


def _vasoactive(latent: dict[str, np.ndarray], i: int, need: Need) -> None:
    if need.vasoactive is None:
        return
    latent["pressor"][i] = bool(need.vasoactive)
    if need.vasoactive:
        latent["pressor_on"][i] = 1.0
        latent["pressor_off"][i] = min(max(latent["pressor_off"][i], 30.0), latent["los_h"][i])
        latent["art_line"][i] = True


def gives_agent(targets: Targets, n: int, itemid: int) -> np.ndarray:
    """Per chunk stay: whether its need gives the vasoactive agent ``itemid``."""
    return targets.flag(
        n, lambda need: any(AGENT_ITEMS[a] == itemid for a in need.vasoactive or ())
    )
