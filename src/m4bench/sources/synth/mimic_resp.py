"""icu.chartevents respiratory support: O2 devices and flows, ventilator modes and settings.

Each stay gets a sequence of support segments (invasive ventilation, tracheostomy,
non-invasive ventilation, high-flow nasal cannula, supplemental oxygen, room air)
charted with the exact device and mode strings of MIMIC-IV.
"""

from __future__ import annotations

import numpy as np

from m4bench.sources.synth.core import QuirkRates
from m4bench.sources.synth.mimic_events import ChartRows, Timeline, pick, timeline
from m4bench.sources.synth.mimic_latent import StayState
from m4bench.sources.synth.mimic_vocab import (
    COMMON_VENT_MODES,
    DEVICE_HFNC,
    DEVICE_NEAR_MISSES,
    DEVICE_NONE,
    DEVICES_NIV,
    DEVICES_SUPPLEMENTAL,
    DEVICES_TRACH,
    HAMILTON_MODES_INVASIVE,
    HAMILTON_MODES_NIV,
    VENT_MODE_NEAR_MISSES,
    VENT_MODES,
    VENTILATOR_TYPES,
)


def fio2_values(rng: np.random.Generator, percent: np.ndarray, q: QuirkRates) -> np.ndarray:
    """FiO2 in percent, with some fractions (0.21-1.0) and some O2 flows typed by mistake."""
    out = np.round(percent).astype(float)
    draw = rng.random(len(out))
    fraction = draw < q.fio2_fraction
    typo = (draw >= q.fio2_fraction) & (draw < q.fio2_fraction + q.fio2_flow_typo)
    out[fraction] = np.round(out[fraction] / 100, 2)
    out[typo] = rng.integers(2, 16, int(typo.sum()))
    return out


def _fio2(
    rng: np.random.Generator, s: StayState, tl: Timeline, percent: np.ndarray, q: QuirkRates
) -> np.ndarray:
    """Charted FiO2: banded for engineered stays, then written with the quirks."""
    return fio2_values(rng, s.targets.shape("fio2", tl.stay, tl.hours, percent), q)


def respiratory(rng: np.random.Generator, s: StayState, rows: ChartRows, q: QuirkRates) -> None:
    n = len(s)
    trach_from = np.where(s.trach, s.vent_on + 0.5 * (s.vent_off - s.vent_on), s.vent_off)
    _invasive(rng, s, rows, q, s.vent, s.vent_on, trach_from)
    again = s.vent & (rng.random(n) < 0.12)
    re_on = s.vent_off + rng.uniform(15, 36, n)
    re_off = np.minimum(re_on + rng.uniform(8, 48, n), s.los_h - 0.5)
    _invasive(rng, s, rows, q, again & (re_off > re_on + 4), re_on, re_off)
    _trach(rng, s, rows, q, s.trach, trach_from, s.vent_off)
    after = np.where(again, re_off, s.vent_off) + 1
    _supplemental(rng, s, rows, q, s.vent & ~s.trach, after, np.minimum(after + 36, s.los_h))
    niv_on = rng.uniform(0, 0.5, n) * s.los_h
    niv_off = np.minimum(niv_on + rng.uniform(4, 24, n), s.los_h)
    # engineered stays on CPAP/BiPAP wear the mask through their first day
    masked = s.targets.flag(n, lambda need: need.niv)
    niv_on = np.where(masked, 0.5, niv_on)
    niv_off = np.where(masked, np.minimum(np.maximum(niv_off, 26.0), s.los_h), niv_off)
    _niv(rng, s, rows, q, s.niv, niv_on, niv_off)
    hf_on = rng.uniform(0, 0.3, n) * s.los_h
    _hfnc(rng, s, rows, q, s.hfnc, hf_on, np.minimum(hf_on + rng.uniform(6, 48, n), s.los_h))
    ox_end = np.where(s.niv, s.los_h, rng.uniform(0.3, 1.0, n) * s.los_h)
    ox_start = np.where(s.niv, niv_off + 1, 0.0)
    _supplemental(rng, s, rows, q, s.oxygen | s.niv, ox_start, ox_end)
    room = ~(s.vent | s.niv | s.hfnc | s.oxygen) & (rng.random(n) < 0.3)
    # engineered stays on room air chart an O2 flow of 0 with it, as real charting sometimes does
    with_flow = s.targets.flag(n, lambda need: need.room_air_flow)
    tl = timeline(rng, s, room | with_flow, 1.0, s.los_h, 8.0, q.off_hour_time)
    rows.text(tl, 226732, np.full(len(tl), DEVICE_NONE, dtype=object))
    zero = tl.take(with_flow[tl.stay])
    rows.numeric(zero, 223834, np.zeros(len(zero)), "L/min", 0)


def _flow(
    rng: np.random.Generator,
    rows: ChartRows,
    q: QuirkRates,
    tl: Timeline,
    itemid: int,
    low: float,
    high: float,
) -> None:
    """O2 flow at the device's charttimes, except for a share ``device_without_flow``."""
    keep = rng.random(len(tl)) >= q.device_without_flow
    rows.numeric(tl.take(keep), itemid, rng.uniform(low, high, int(keep.sum())), "L/min", 0)


def _invasive(
    rng: np.random.Generator,
    s: StayState,
    rows: ChartRows,
    q: QuirkRates,
    mask: np.ndarray,
    on: np.ndarray,
    off: np.ndarray,
) -> None:
    dev = timeline(rng, s, mask, on, off, 4.0, q.off_hour_time)
    rows.text(dev, 226732, np.full(len(dev), "Endotracheal tube", dtype=object))
    _flow(rng, rows, q, dev, 223834, 2, 10)
    conflict = dev.take(rng.random(len(dev)) < 0.02)
    rows.text(conflict, 226732, np.full(len(conflict), "Nasal cannula", dtype=object))
    settings = timeline(rng, s, mask, on + 1, off, 4.0, q.off_hour_time)
    _vent_settings(rng, s, rows, q, settings)


def _vent_settings(
    rng: np.random.Generator, s: StayState, rows: ChartRows, q: QuirkRates, tl: Timeline
) -> None:
    n = len(tl)
    hamilton = (s.intime[tl.stay] // 3600) % 7 == 0
    modes = pick(rng, COMMON_VENT_MODES, n)
    rare = (rng.random(n) < 0.2) & ~hamilton
    modes[rare] = np.array(VENT_MODES, dtype=object)[np.arange(int(rare.sum())) % len(VENT_MODES)]
    near = (rng.random(n) < 0.02) & ~rare
    modes[near] = pick(rng, VENT_MODE_NEAR_MISSES, int(near.sum()))
    rows.text(tl.take(~hamilton), 223849, modes[~hamilton])
    ham_modes = np.array(HAMILTON_MODES_INVASIVE, dtype=object)[
        np.arange(int(hamilton.sum())) % len(HAMILTON_MODES_INVASIVE)
    ]
    rows.text(tl.take(hamilton), 229314, ham_modes)
    rows.text(
        tl.take(tl.hours.astype(int) % 12 < 4),
        223848,
        pick(rng, VENTILATOR_TYPES, int((tl.hours.astype(int) % 12 < 4).sum())),
    )
    sev = s.severity_at(tl.stay, tl.hours)
    fio2 = np.clip(30 + 60 * sev + rng.normal(0, 8, n), 21, 100)
    rows.numeric(tl, 223835, _fio2(rng, s, tl, fio2, q), "%", 2)
    rows.numeric(
        tl, 220339, np.clip(np.round(5 + 10 * sev + rng.normal(0, 1.5, n)), 0, 24), "cmH2O", 0
    )
    rows.numeric(tl, 224684, rng.choice([400.0, 450.0, 500.0, 550.0], n), "mL", 0)
    rows.numeric(tl, 224685, rng.normal(470, 60, n), "mL", 0)
    rows.numeric(tl, 224687, np.clip(rng.normal(9, 2, n), 3, 20), "L/min", 1)
    rows.numeric(tl, 224688, rng.choice([12.0, 14.0, 16.0, 18.0, 20.0], n), "insp/min", 0)
    rows.numeric(tl, 224690, np.clip(rng.normal(18, 4, n), 8, 40), "insp/min", 0)
    some = tl.take(rng.random(n) < 0.5)
    rows.numeric(some, 224696, np.clip(rng.normal(22, 5, len(some)), 10, 40), "cmH2O", 0)
    few = tl.take(rng.random(n) < 0.25)
    rows.numeric(few, 224700, np.clip(rng.normal(9, 3, len(few)), 0, 25), "cmH2O", 0)
    rows.numeric(few, 224686, np.clip(rng.normal(380, 80, len(few)), 100, 800), "mL", 0)
    rows.numeric(few, 224689, np.clip(rng.normal(6, 5, len(few)), 0, 30), "insp/min", 0)
    rows.numeric(few, 224691, np.clip(rng.normal(50, 10, len(few)), 20, 90), "L/min", 0)


def _trach(
    rng: np.random.Generator,
    s: StayState,
    rows: ChartRows,
    q: QuirkRates,
    mask: np.ndarray,
    on: np.ndarray,
    off: np.ndarray,
) -> None:
    tl = timeline(rng, s, mask, on, off, 4.0, q.off_hour_time)
    rows.text(tl, 226732, pick(rng, DEVICES_TRACH, len(tl)))
    _flow(rng, rows, q, tl, 223834, 5, 12)
    cpap = tl.take(rng.random(len(tl)) < 0.5)
    rows.text(cpap, 223849, np.full(len(cpap), "CPAP/PSV", dtype=object))


def _niv(
    rng: np.random.Generator,
    s: StayState,
    rows: ChartRows,
    q: QuirkRates,
    mask: np.ndarray,
    on: np.ndarray,
    off: np.ndarray,
) -> None:
    tl = timeline(rng, s, mask, on, off, 2.0, q.off_hour_time)
    kind = np.array(DEVICES_NIV, dtype=object)[tl.stay % 2]
    rows.text(tl, 226732, kind)
    _flow(rng, rows, q, tl, 227582, 2, 15)
    sev = s.severity_at(tl.stay, tl.hours)
    rows.numeric(tl, 223835, _fio2(rng, s, tl, np.clip(35 + 45 * sev, 21, 100), q), "%", 2)
    ham = tl.take(rng.random(len(tl)) < 0.2)
    rows.text(
        ham,
        229314,
        np.array(HAMILTON_MODES_NIV, dtype=object)[np.arange(len(ham)) % len(HAMILTON_MODES_NIV)],
    )


def _hfnc(
    rng: np.random.Generator,
    s: StayState,
    rows: ChartRows,
    q: QuirkRates,
    mask: np.ndarray,
    on: np.ndarray,
    off: np.ndarray,
) -> None:
    tl = timeline(rng, s, mask, on, off, 3.0, q.off_hour_time)
    rows.text(tl, 226732, np.full(len(tl), DEVICE_HFNC, dtype=object))
    _flow(rng, rows, q, tl, 223834, 30, 60)
    rows.numeric(tl, 223835, _fio2(rng, s, tl, rng.uniform(40, 90, len(tl)), q), "%", 2)


def _supplemental(
    rng: np.random.Generator,
    s: StayState,
    rows: ChartRows,
    q: QuirkRates,
    mask: np.ndarray,
    on: np.ndarray,
    off: np.ndarray,
) -> None:
    tl = timeline(rng, s, mask, on, off, 3.0, q.off_hour_time)
    n = len(tl)
    per_stay = np.array(DEVICES_SUPPLEMENTAL, dtype=object)[
        (np.arange(len(s)) + rng.integers(0, 1000)) % len(DEVICES_SUPPLEMENTAL)
    ]
    device = per_stay[tl.stay]
    near = rng.random(n) < 0.02
    device[near] = np.array(DEVICE_NEAR_MISSES, dtype=object)[
        np.arange(int(near.sum())) % len(DEVICE_NEAR_MISSES)
    ]
    rows.text(tl, 226732, device)
    with_flow = rng.random(n) >= q.device_without_flow
    flow = np.where(device == "Nasal cannula", rng.uniform(1, 6, n), rng.uniform(6, 15, n))
    rows.numeric(tl.take(with_flow), 223834, flow[with_flow], "L/min", 0)
    second = rng.random(n) < 0.05
    rows.text(tl.take(second), 226732, pick(rng, DEVICES_SUPPLEMENTAL, int(second.sum())))
    extra = tl.take(rng.random(n) < 0.03)
    rows.numeric(extra, 227287, rng.uniform(1, 6, len(extra)), "L/min", 0)
