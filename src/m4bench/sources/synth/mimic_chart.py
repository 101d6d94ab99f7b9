"""icu.chartevents: vitals, temperature, glucose, GCS, weight and height, rhythm, CRRT, decoys.

Respiratory support (devices, O2 flow, ventilator settings) is in ``mimic_resp``.
"""

from __future__ import annotations

import numpy as np

from m4bench.sources.synth.core import QuirkRates
from m4bench.sources.synth.mimic_events import ChartRows, Timeline, pick, timeline
from m4bench.sources.synth.mimic_latent import StayState
from m4bench.sources.synth.mimic_vocab import (
    CRRT_MODES,
    CRRT_SYSTEM_INTEGRITY,
    GCS_EYES,
    GCS_MOTOR,
    GCS_VERBAL,
    GCS_VERBAL_ETT,
    RASS,
    RHYTHMS,
    TEMPERATURE_SITES,
)

FILLER_NUMERIC = (
    (220046, 120.0, "bpm"),
    (220047, 50.0, "bpm"),
    (223751, 160.0, "mmHg"),
    (223752, 90.0, "mmHg"),
    (223769, 100.0, "%"),
    (223770, 90.0, "%"),
    (224161, 35.0, "insp/min"),
    (224162, 8.0, "insp/min"),
)
FILLER_BRADEN = (
    (224054, ("No Impairment", "Slightly Limited", "Very Limited", "Completely Limited")),
    (224055, ("Rarely Moist", "Occasionally Moist", "Moist", "Consistently Moist")),
    (224056, ("Bedfast", "Chairfast", "Walks Occasionally")),
    (224057, ("Very Limited", "Slightly Limited", "Completely Immobile", "No Limitations")),
    (224058, ("Adequate", "Probably Inadequate", "Very Poor", "Excellent")),
    (224059, ("Potential Problem", "Problem", "No Apparent Problem")),
)
FILLER_TEXT = (
    (224080, ("30 Degrees", "45 Degrees", "Flat")),
    (224093, ("Left Side", "Right Side", "Supine")),
    (224168, ("Yes",)),
    (224641, ("Yes",)),
)


def vitals(rng: np.random.Generator, s: StayState, rows: ChartRows, q: QuirkRates) -> None:
    every = np.ones(len(s), bool)
    hr_tl = timeline(rng, s, every, -1.0, s.los_h + 0.5, 1.0, q.off_hour_time)
    sev = s.severity_at(hr_tl.stay, hr_tl.hours)
    stay_hr = rng.normal(0, 8, len(s))
    hr = np.clip(78 + 35 * sev + stay_hr[hr_tl.stay] + rng.normal(0, 6, len(hr_tl)), 35, 190)
    rows.numeric(
        hr_tl, 220045, s.targets.shape("heart_rate", hr_tl.stay, hr_tl.hours, hr), "bpm", 0
    )
    tl = timeline(rng, s, every, 0.0, s.los_h, 1.0, q.off_hour_time)
    sev = s.severity_at(tl.stay, tl.hours)
    rr = np.clip(15 + 14 * sev + rng.normal(0, 3, len(tl)), 5, 60)
    rows.numeric(tl, 220210, s.targets.shape("resp_rate", tl.stay, tl.hours, rr), "insp/min", 0)
    rows.numeric(tl, 220277, np.clip(98 - 9 * sev + rng.normal(0, 1.8, len(tl)), 70, 100), "%", 0)
    _blood_pressure(rng, s, rows, q)
    _temperature(rng, s, rows, q)
    gl = timeline(rng, s, every, 1.0, s.los_h, 6.0, q.off_hour_time)
    _glucose(s, rows, gl, 225664, np.clip(rng.lognormal(np.log(135), 0.3, len(gl)), 40, 600))
    serum = timeline(rng, s, rng.random(len(s)) < 0.3, 2.0, s.los_h, 12.0, 0.5)
    _glucose(s, rows, serum, 220621, np.clip(rng.lognormal(np.log(130), 0.3, len(serum)), 40, 600))
    wb = timeline(rng, s, rng.random(len(s)) < 0.05, 3.0, s.los_h, 24.0, 0.5)
    _glucose(s, rows, wb, 226537, np.clip(rng.lognormal(np.log(140), 0.3, len(wb)), 40, 600))


def _glucose(s: StayState, rows: ChartRows, tl: Timeline, itemid: int, values: np.ndarray) -> None:
    rows.numeric(tl, itemid, s.targets.shape("glucose", tl.stay, tl.hours, values), "mg/dL", 0)


def _blood_pressure(rng: np.random.Generator, s: StayState, rows: ChartRows, q: QuirkRates) -> None:
    nibp_every = np.where(s.art_line, 4.0, 1.0)
    for step in (1.0, 4.0):
        tl = timeline(rng, s, nibp_every == step, 0.0, s.los_h, step, q.off_hour_time)
        _bp_trio(rng, s, rows, tl, (220179, 220180, 220181))
    art = timeline(rng, s, s.art_line, 0.5, s.los_h - 1, 1.0, q.off_hour_time)
    _bp_trio(rng, s, rows, art, (220050, 220051, 220052))
    second = timeline(
        rng, s, s.art_line & (rng.random(len(s)) < 0.05), 2.0, s.los_h / 2, 2.0, q.off_hour_time
    )
    _bp_trio(rng, s, rows, second, (225309, 225310, 225312))


def _bp_trio(
    rng: np.random.Generator,
    s: StayState,
    rows: ChartRows,
    tl: Timeline,
    items: tuple[int, int, int],
) -> None:
    sev = s.severity_at(tl.stay, tl.hours)
    on_pressor = (
        s.pressor[tl.stay]
        & (tl.hours >= s.pressor_on[tl.stay])
        & (tl.hours <= s.pressor_off[tl.stay])
    )
    mbp = np.clip(91 - 22 * sev - 6 * on_pressor + rng.normal(0, 5.5, len(tl)), 35, 150)
    mbp = s.targets.shape("mbp", tl.stay, tl.hours, mbp)
    sbp = s.targets.shape("sbp", tl.stay, tl.hours, mbp + rng.uniform(25, 50, len(tl)))
    # for the stays whose pressures are shaped, keep diastolic below mean and systolic
    dbp = np.minimum(np.maximum(mbp - rng.uniform(10, 22, len(tl)), 20), mbp - 2)
    dbp = np.minimum(dbp, sbp - 10)
    rows.numeric(tl, items[0], sbp, "mmHg", 0)
    rows.numeric(tl, items[1], dbp, "mmHg", 0)
    rows.numeric(tl, items[2], mbp, "mmHg", 0)


def _temperature(rng: np.random.Generator, s: StayState, rows: ChartRows, q: QuirkRates) -> None:
    tl = timeline(rng, s, np.ones(len(s), bool), 0.0, s.los_h, 4.0, q.off_hour_time)
    sev = s.severity_at(tl.stay, tl.hours)
    fever = s.infection[tl.stay] & (np.abs(tl.hours - s.infection_h[tl.stay]) < 36)
    celsius = np.clip(
        36.8 + fever * (0.6 + 2.0 * sev) + rng.normal(0, 0.45, len(tl)) - 0.8 * (sev > 0.8),
        33.0,
        41.5,
    )
    celsius = s.targets.shape("temperature", tl.stay, tl.hours, celsius)
    in_c = rng.random(len(tl)) < 0.15
    swap = rng.random(len(tl)) < q.temperature_unit_swap
    f_item = ~in_c
    value = np.where(f_item, celsius * 1.8 + 32, celsius)
    value = np.where(swap, np.where(f_item, celsius, celsius * 1.8 + 32), value)
    rows.numeric(tl.take(f_item), 223761, value[f_item], "°F", 1)
    rows.numeric(tl.take(~f_item), 223762, value[~f_item], "°C", 1)
    rows.text(tl, 224642, pick(rng, TEMPERATURE_SITES, len(tl)))


def gcs(rng: np.random.Generator, s: StayState, rows: ChartRows, q: QuirkRates) -> None:
    """GCS trios every ~3 h; 'No Response-ETT' while intubated; some partial charttimes.

    Engineered stays may chart a fixed trio through their window, chart none in it, or
    start charting two hours before ICU admission.
    """
    early = s.targets.flag(len(s), lambda need: need.gcs_charting == "before-icu")
    tl = timeline(rng, s, np.ones(len(s), bool), np.where(early, -2.0, 0.0), s.los_h, 3.0,
                  q.off_hour_time)  # fmt: skip
    n = len(tl)
    sev = s.severity_at(tl.stay, tl.hours)
    impaired = s.gcs_loss[tl.stay] > 0
    loss = np.where(impaired, np.round(s.gcs_loss[tl.stay] * (0.4 + sev) + rng.normal(0, 1, n)), 0)
    loss = np.clip(loss + (rng.random(n) < 0.04), 0, 12)
    v_loss = np.minimum(4, np.ceil(loss * 0.4))
    e_loss = np.minimum(3, np.round(loss * 0.3))
    m_loss = np.clip(loss - v_loss - e_loss, 0, 5)
    eyes = (4 - e_loss).astype(int)
    verbal = (5 - v_loss).astype(int)
    motor = (6 - m_loss).astype(int)
    intubated = (
        s.vent[tl.stay] & (tl.hours >= s.vent_on[tl.stay]) & (tl.hours <= s.vent_off[tl.stay])
    )
    partial = rng.random(n) < q.gcs_partial
    which = rng.integers(0, 3, n)
    keep_e = ~partial | (which == 0)
    keep_v = ~partial | (which == 1)
    keep_m = ~partial | (which != 1)
    intubated &= rng.random(n) < 0.85  # some sedated patients are charted 'No Response'
    eyes, verbal, motor, intubated = _fixed_trios(s, tl, (eyes, verbal, motor), intubated)
    charted = ~s.targets.window(tl.stay, tl.hours, lambda need: need.gcs_charting == "none")
    keep_e, keep_v, keep_m = keep_e & charted, keep_v & charted, keep_m & charted
    eye_text = np.array([t for _, t in GCS_EYES], dtype=object)[4 - eyes]
    rows.text(tl.take(keep_e), 220739, eye_text[keep_e], eyes[keep_e])
    verbal_text = np.array([t for _, t in GCS_VERBAL], dtype=object)[5 - verbal]
    verbal_text = np.where(intubated, GCS_VERBAL_ETT, verbal_text)
    verbal_num = np.where(intubated, 1, verbal)
    rows.text(tl.take(keep_v), 223900, verbal_text[keep_v], verbal_num[keep_v])
    motor_text = np.array([t for _, t in GCS_MOTOR], dtype=object)[6 - motor]
    rows.text(tl.take(keep_m), 223901, motor_text[keep_m], motor[keep_m])


def _fixed_trios(
    s: StayState,
    tl: Timeline,
    trio: tuple[np.ndarray, np.ndarray, np.ndarray],
    intubated: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Eyes, verbal, motor and intubation with the fixed trios of engineered stays."""
    fixed = s.targets.window(tl.stay, tl.hours, lambda need: need.gcs is not None)
    if not fixed.any():
        return (*trio, intubated)
    wanted = np.zeros((len(s), 3), dtype=int)
    for stay, need in s.targets.needs.items():
        if need.gcs is not None:
            wanted[stay] = need.gcs
    parts = tuple(np.where(fixed, wanted[tl.stay, k], part) for k, part in enumerate(trio))
    return parts[0], parts[1], parts[2], intubated & ~fixed


def body_size(rng: np.random.Generator, s: StayState, rows: ChartRows, q: QuirkRates) -> None:
    """Admission weight (~95 %), daily weights, lbs decoy, heights; absurd weights on purpose."""
    n = len(s)
    has = rng.random(n) < 0.95
    at = rng.uniform(0, 4, n)
    adm = timeline(rng, s, has, at, at, 24.0, 1.0)
    rows.numeric(adm, 226512, _weights(rng, s.weight[adm.stay], q), "kg", 1)
    daily = timeline(rng, s, rng.random(n) < 0.6, 20.0, s.los_h, 24.0, 0.5)
    drift = s.weight[daily.stay] * (1 + 0.01 * daily.hours / 24)
    rows.numeric(daily, 224639, _weights(rng, drift, q), "kg", 1)
    lbs = timeline(rng, s, rng.random(n) < 0.2, 1.0, 1.0, 24.0, 1.0)
    rows.numeric(lbs, 226531, s.weight[lbs.stay] * 2.2046, "lbs", 1)
    cm = timeline(rng, s, rng.random(n) < 0.55, 1.5, 1.5, 24.0, 1.0)
    rows.numeric(cm, 226730, s.height_cm[cm.stay], "cm", 0)
    inch = timeline(rng, s, rng.random(n) < 0.12, 2.0, 2.0, 24.0, 1.0)
    rows.numeric(inch, 226707, np.round(s.height_cm[inch.stay] / 2.54), "Inch", 0)


def _weights(rng: np.random.Generator, kg: np.ndarray, q: QuirkRates) -> np.ndarray:
    out = kg.copy()
    absurd = rng.random(len(kg)) < q.absurd_weight
    kind = rng.integers(0, 4, len(kg))
    out[absurd & (kind == 0)] = 0.0
    out[absurd & (kind == 1)] = 1.0
    out[absurd & (kind == 2)] = rng.uniform(1500, 2500, int((absurd & (kind == 2)).sum()))
    out[absurd & (kind == 3)] = kg[absurd & (kind == 3)] * 2.2046
    return out


def rhythm_and_neuro(
    rng: np.random.Generator, s: StayState, rows: ChartRows, q: QuirkRates
) -> None:
    tl = timeline(rng, s, np.ones(len(s), bool), 0.0, s.los_h, 4.0, q.off_hour_time)
    rows.text(tl, 220048, pick(rng, RHYTHMS, len(tl)))
    ect = tl.take(rng.random(len(tl)) < 0.1)
    rows.text(ect, 224650, pick(rng, ("PVC's", "PAC's", "None"), len(ect)))
    rows.text(ect, 224651, pick(rng, ("Occasional", "Rare", "Frequent"), len(ect)))
    ect2 = ect.take(rng.random(len(ect)) < 0.3)
    rows.text(ect2, 226479, pick(rng, ("PVC's", "PAC's"), len(ect2)))
    rows.text(ect2, 226480, pick(rng, ("Occasional", "Rare"), len(ect2)))
    rass = timeline(rng, s, np.ones(len(s), bool), 0.5, s.los_h, 2.0, q.off_hour_time)
    rows.text(rass, 228096, pick(rng, RASS, len(rass)))
    neuro = (s.gcs_loss > 6) & (rng.random(len(s)) < 0.3)
    icp = timeline(rng, s, neuro, 1.0, s.los_h, 1.0, q.off_hour_time)
    rows.numeric(icp, 220765, np.clip(rng.normal(14, 6, len(icp)), 0, 45), "mmHg", 0)
    first_icp = icp.stay[0] if len(icp) else -1
    second = icp.take((icp.stay % 3 == 0) | (icp.stay == first_icp))
    rows.numeric(second, 227989, np.clip(rng.normal(13, 6, len(second)), 0, 45), "mmHg", 0)
    cvp = timeline(rng, s, s.art_line, 0.5, s.los_h, 1.0, q.off_hour_time)
    rows.numeric(cvp, 220074, np.clip(rng.normal(10, 4, len(cvp)), 0, 30), "mmHg", 0)


def crrt(rng: np.random.Generator, s: StayState, rows: ChartRows, q: QuirkRates) -> None:
    """CRRT charting from the AKI peak onwards (mode, system integrity, flows, pressures)."""
    start = np.maximum(s.aki_peak_h - 2, 0.5)
    end = np.minimum(start + rng.uniform(24, 96, len(s)), s.los_h - 0.5)
    tl = timeline(rng, s, s.crrt, start, end, 1.0, q.off_hour_time)
    n = len(tl)
    if n == 0:
        return
    mode = np.array(CRRT_MODES, dtype=object)[np.arange(len(s)) % len(CRRT_MODES)][tl.stay]
    every4 = tl.take((tl.hours.astype(int) % 4) == 0)
    rows.text(every4, 227290, mode[(tl.hours.astype(int) % 4) == 0])
    rows.text(tl, 224146, pick(rng, CRRT_SYSTEM_INTEGRITY, n))
    rows.numeric(tl, 224144, rng.uniform(100, 250, n), "ml/min", 0)
    rows.numeric(tl, 224154, rng.uniform(500, 2500, n), "ml/hr", 0)
    rows.numeric(tl, 224191, rng.uniform(0, 200, n), "ml", 0)
    rows.numeric(tl, 224153, rng.uniform(500, 2000, n), "ml/hr", 0)
    rows.numeric(tl, 224149, rng.uniform(-150, -50, n), "mmHg", 0)
    rows.numeric(tl, 224152, rng.uniform(50, 150, n), "mmHg", 0)
    first = tl.take(np.r_[True, tl.stay[1:] != tl.stay[:-1]])
    rows.text(first, 226118, np.full(len(first), "Yes", dtype=object))
    rows.text(first, 227357, np.full(len(first), "Yes", dtype=object))
    rows.text(first, 225725, np.full(len(first), "No", dtype=object))
    _crrt_settings(rng, rows, every4)


def _crrt_settings(rng: np.random.Generator, rows: ChartRows, tl: Timeline) -> None:
    """Four-hourly CRRT prescription and circuit items."""
    n = len(tl)
    numeric = (
        (228004, 150, 250, "ml/hr"), (228005, 500, 1500, "ml/hr"), (228006, 200, 800, "ml/hr"),
        (224145, 0, 1000, "units"), (224150, 100, 250, "mmHg"), (224151, -100, 100, "mmHg"),
        (225183, -200, 0, "ml"), (227438, 0, 300, "mL"), (224404, 1.2, 2.0, "mL"),
        (224406, 1.2, 2.0, "mL"), (226457, 100, 400, "mL"),
    )  # fmt: skip
    for itemid, low, high, unit in numeric:
        rows.numeric(tl, itemid, rng.uniform(low, high, n), unit, 1)
    rows.text(tl, 225976, pick(rng, ("Prismasate K4", "Prismasate K2", "Phoxillum"), n))
    rows.text(tl, 225977, pick(rng, ("Prismasate K4", "Prismasate K2"), n))
    rows.text(tl, 224135, pick(rng, ("Right Internal Jugular", "Left Femoral", "Right Femoral"), n))
    rows.text(tl, 224139, pick(rng, ("Clean/Dry/Intact", "Oozing"), n))


def other_dialysis(rng: np.random.Generator, s: StayState, rows: ChartRows, q: QuirkRates) -> None:
    """Haemodialysis output for intermittent dialysis, exchanges for peritoneal dialysis."""
    at = s.los_h * 0.5 + 4
    hd = timeline(rng, s, s.ihd, at, at, 24.0, q.off_hour_time)
    rows.numeric(hd, 226499, rng.uniform(500, 3000, len(hd)), "mL", 0)
    pd_tl = timeline(rng, s, s.peritoneal, 2.0, s.los_h, 6.0, q.off_hour_time)
    m = len(pd_tl)
    rows.numeric(pd_tl, 225806, np.full(m, 2000.0), "mL", 0)
    rows.numeric(pd_tl, 225807, rng.uniform(1800, 2600, m), "mL", 0)
    rows.numeric(pd_tl, 225810, np.full(m, 4.0), "hours", 0)
    rows.text(pd_tl, 225965, pick(rng, ("In use", "In use", "Capped"), m))


def filler(rng: np.random.Generator, s: StayState, rows: ChartRows, q: QuirkRates) -> None:
    """Items no concept reads, for realistic table volume: hourly alarm limits, bed position
    and checks, Braden scale items every 12 h."""
    every = np.ones(len(s), bool)
    for itemid, level, unit in FILLER_NUMERIC:
        tl = timeline(rng, s, every, 0.0, s.los_h, 1.0, q.off_hour_time)
        rows.numeric(tl, itemid, np.full(len(tl), level), unit, 0)
    for itemid, options in FILLER_TEXT:
        tl = timeline(rng, s, every, 0.0, s.los_h, 1.0, q.off_hour_time)
        rows.text(tl, itemid, pick(rng, options, len(tl)))
    for itemid, braden in FILLER_BRADEN:
        tl = timeline(rng, s, every, 2.0, s.los_h, 12.0, q.off_hour_time)
        rows.text(tl, itemid, pick(rng, braden, len(tl)))
