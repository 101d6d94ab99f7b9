"""icu.outputevents (urine), icu.inputevents (vasoactive drips, fluids, CRRT additives; the
other infusions come from ``mimic_infusions``),
icu.procedureevents (dialysis, lines; the other procedures come from ``mimic_procedures``)
for one chunk of stays. icu.datetimeevents is built by ``mimic_dates``."""

from __future__ import annotations

from typing import Any

import numpy as np

from m4bench.sources.synth.core import QuirkRates, at_least_one, group_arange, seconds_to_us
from m4bench.sources.synth.mimic_engineered import gives_agent
from m4bench.sources.synth.mimic_events import Timeline, timeline
from m4bench.sources.synth.mimic_infusions import infusion_columns
from m4bench.sources.synth.mimic_latent import StayState
from m4bench.sources.synth.mimic_procedures import more_procedure_columns
from m4bench.sources.synth.mimic_vocab import (
    URINE_ITEMS_MINOR,
    VASOPRESSOR_RARE_UNITS,
    VASOPRESSORS,
)

Columns = dict[str, Any]
# share of vasopressor stays receiving each drug (norepinephrine first)
# invasive lines other than arterial, multi-lumen and PICC (invasive_line reads them all)
OTHER_LINES = np.array([
    227719, 224269, 224267, 224272, 226124, 228169, 225202, 228286, 225204, 224560, 225203,
    224273, 225789, 225761, 228201, 228202, 224268, 225199, 225315, 225205,
])  # fmt: skip
DRUG_SHARE = {
    221906: 0.85,
    222315: 0.3,
    221749: 0.25,
    221289: 0.12,
    221662: 0.08,
    221653: 0.06,
    221986: 0.05,
}


def _ids(ids: dict[str, np.ndarray], stay: np.ndarray) -> Columns:
    return {
        "subject_id": ids["subject_id"][stay],
        "hadm_id": ids["hadm_id"][stay],
        "stay_id": ids["stay_id"][stay],
    }


def outputevents_chunk(
    rng: np.random.Generator, s: StayState, ids: dict[str, np.ndarray], q: QuirkRates
) -> Columns:
    """Hourly Foley urine (zeros when anuric), voids, minor urine items and GU irrigation."""
    n = len(s)
    # engineered stays with banded urine chart it all as hourly Foley output
    banded = s.targets.flag(n, lambda need: "urine_rate" in need.values
                            or "urine_24h" in need.values)  # fmt: skip
    foley = (rng.random(n) < 0.85) | banded
    tl = timeline(rng, s, foley, -rng.uniform(0, 2, n), s.los_h, 1.0, q.off_hour_time)
    near_peak = np.abs(tl.hours - s.aki_peak_h[tl.stay]) < 18
    stage = np.where(near_peak, s.aki_stage[tl.stay], 0)
    ml_kg_h = np.select(
        [stage == 3, stage == 2, stage == 1], [0.15, 0.35, 0.45], 1.0
    ) * rng.lognormal(0, 0.35, len(tl))
    anuric = s.crrt[tl.stay] & near_peak & (rng.random(len(tl)) < 0.7)
    ml_kg_h = s.targets.shape("urine_rate", tl.stay, tl.hours, np.where(anuric, 0.0, ml_kg_h))
    volume = s.targets.total("urine_24h", tl.stay, tl.hours, ml_kg_h * s.weight[tl.stay])
    volume = np.round(volume)
    voids = timeline(rng, s, ~foley, 1.0, s.los_h, 4.0, 1.0)
    minor_stays = (rng.random(n) < 0.08) & ~banded
    minor = timeline(rng, s, minor_stays, 0.5, s.los_h, 6.0, 1.0)
    # each minor urine route in turn, so all occur even in small cohorts
    route = np.cumsum(minor_stays) - 1
    irrigated = (rng.random(n) < 0.02) & ~banded
    irr = timeline(rng, s, irrigated, 0.5, s.los_h, 2.0, 1.0)
    parts = [
        (tl, np.full(len(tl), 226559), volume),
        (voids, np.full(len(voids), 226560), np.round(rng.uniform(100, 600, len(voids)))),
        (
            minor,
            np.array(URINE_ITEMS_MINOR)[route[minor.stay] % len(URINE_ITEMS_MINOR)],
            np.round(rng.uniform(10, 300, len(minor))),
        ),
        (irr, np.full(len(irr), 227488), np.round(rng.uniform(100, 400, len(irr)))),
        (irr, np.full(len(irr), 227489), np.round(rng.uniform(80, 500, len(irr)))),
    ]
    stay = np.concatenate([p[0].stay for p in parts])
    time = np.concatenate([p[0].time for p in parts])
    order = np.lexsort((time, stay))
    return {
        **_ids(ids, stay[order]),
        "caregiver_id": rng.integers(10_000, 10_500, len(order)),
        "charttime": seconds_to_us(time[order]),
        "storetime": seconds_to_us(time[order] + rng.integers(1, 60, len(order)) * 60),
        "itemid": np.concatenate([p[1] for p in parts])[order],
        "value": np.concatenate([p[2] for p in parts])[order],
        "valueuom": np.full(len(order), "ml", dtype=object),
    }


def _infusions(
    rng: np.random.Generator, s: StayState
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(stay, itemid, start hour, end hour) of every vasoactive infusion of the chunk."""
    stays, items, starts, ends = [], [], [], []
    chosen = s.targets.flag(len(s), lambda need: need.vasoactive is not None)
    for itemid, share in DRUG_SHARE.items():
        gets = s.pressor & (rng.random(len(s)) < share)
        if itemid == 221986:
            gets = at_least_one(gets & (s.cvicu | (rng.random(len(s)) < 0.3)), s.pressor)
        # engineered stays get exactly the agents their need names
        gets = np.where(chosen, gives_agent(s.targets, len(s), itemid), gets)
        idx = np.flatnonzero(gets)
        lag = 0.0 if itemid == 221906 else 1.0
        on = s.pressor_on[idx] + rng.uniform(0, 3, len(idx)) * lag
        off = s.pressor_off[idx] - rng.uniform(0, 3, len(idx)) * lag
        keep = off > on + 0.3
        stays.append(idx[keep])
        items.append(np.full(int(keep.sum()), itemid))
        starts.append(on[keep])
        ends.append(off[keep])
    return (
        np.concatenate(stays),
        np.concatenate(items),
        np.concatenate(starts),
        np.concatenate(ends),
    )


def inputevents_chunk(
    rng: np.random.Generator,
    s: StayState,
    ids: dict[str, np.ndarray],
    q: QuirkRates,
    first_order: int,
) -> Columns:
    stay, item, on, off = _infusions(rng, s)
    overlap = rng.random(len(stay)) < q.vasopressor_overlap
    mid = on + (off - on) * rng.uniform(0.3, 0.7, len(stay))
    stay = np.concatenate([stay, stay[overlap]])
    item = np.concatenate([item, item[overlap]])
    on2 = np.concatenate([on, mid[overlap]])
    off = np.concatenate(
        [
            off,
            np.minimum(
                mid[overlap] + rng.uniform(0.2, 1.0, int(overlap.sum())), off[overlap] + 0.5
            ),
        ]
    )
    segs = np.maximum(1, np.round((off - on2) / rng.uniform(1.5, 3.5, len(stay)))).astype(np.int64)
    chain = np.repeat(np.arange(len(stay)), segs)
    k = group_arange(segs)
    length = (off - on2)[chain] / segs[chain]
    start_h = on2[chain] + k * length
    rows = _drip_rows(
        rng, s, stay[chain], item[chain], start_h, start_h + length, k == segs[chain] - 1, q
    )
    fluids = _fluid_rows(rng, s, q)
    columns = {key: np.concatenate([rows[key], fluids[key]]) for key in rows}
    order = np.lexsort((columns["itemid"], columns["start"], columns["stay"]))
    n = len(order)
    orderid = (first_order + np.arange(n))[order]
    link = np.concatenate(
        [
            np.repeat(first_order + np.cumsum(segs) - segs, segs),
            first_order + len(chain) + np.arange(len(fluids["stay"])),
        ]
    )
    drips = _input_columns(
        rng, s, ids, {key: value[order] for key, value in columns.items()}, orderid, link[order]
    )
    # the other infusions draw from their own stream, so the rows above stay as they were
    more = infusion_columns(rng.spawn(1)[0], s, ids, first_order + n)
    both = {key: np.concatenate([drips[key], more[key]]) for key in drips}
    rank = np.lexsort((both["itemid"], both["starttime"], both["stay_id"]))
    return {key: value[rank] for key, value in both.items()}


def _drip_rows(
    rng: np.random.Generator,
    s: StayState,
    stay: np.ndarray,
    item: np.ndarray,
    start_h: np.ndarray,
    end_h: np.ndarray,
    last: np.ndarray,
    q: QuirkRates,
) -> dict[str, np.ndarray]:
    n = len(stay)
    low = np.array([VASOPRESSORS[int(i)][0] for i in item]) if n else np.zeros(0)
    high = np.array([VASOPRESSORS[int(i)][1] for i in item]) if n else np.zeros(0)
    sev = s.severity_at(stay, start_h)
    rate = low + (high - low) * np.clip(sev**2 * rng.uniform(0.3, 2.2, n), 0.02, 1.0)
    unit = (
        np.array([VASOPRESSORS[int(i)][2] for i in item], dtype=object)
        if n
        else np.zeros(0, dtype=object)
    )
    weight = s.weight[stay].copy()
    eligible = np.isin(item, list(VASOPRESSOR_RARE_UNITS))
    # the rate is a share of all vasoactive rows; only three drugs have a rare unit
    share = min(1.0, q.vasopressor_unit_variant * n / max(int(eligible.sum()), 1))
    rare = eligible & (rng.random(n) < share)
    unit[rare] = np.array([VASOPRESSOR_RARE_UNITS[int(i)] for i in item[rare]], dtype=object)
    ne_mg = rare & (item == 221906)
    weight[ne_mg] = 1.0
    rate[rare & (item == 221749)] *= s.weight[stay][rare & (item == 221749)]
    rate[rare & (item == 222315)] /= 60.0
    minutes = (end_h - start_h) * 60
    per_kg = np.char.find(unit.astype(str), "/kg/") >= 0
    amount = np.where(
        per_kg,
        rate * weight * minutes / 1000,
        np.where(item == 222315, rate * minutes / 60, rate * minutes / 1000),
    )
    status = np.where(
        last, np.where(rng.random(n) < 0.5, "FinishedRunning", "Stopped"), "ChangeDose/Rate"
    ).astype(object)
    odd = rng.random(n)
    status[odd < 0.02] = "Rewritten"
    status[(odd >= 0.02) & (odd < 0.04)] = "Paused"
    return {
        "stay": stay,
        "start": start_h,
        "end": end_h,
        "itemid": item,
        "rate": np.round(rate, 4),
        "rateuom": unit,
        "amount": np.round(amount, 4),
        "amountuom": np.where(item == 222315, "units", "mg").astype(object),
        "weight": weight,
        "status": status,
        "category": np.full(n, "01-Drips", dtype=object),
        "description": np.full(n, "Continuous Med", dtype=object),
    }


_ROW_KEYS = (
    "stay", "start", "end", "itemid", "rate", "rateuom", "amount", "amountuom", "weight",
    "status", "category", "description",
)  # fmt: skip


def _fluid_rows(rng: np.random.Generator, s: StayState, q: QuirkRates) -> dict[str, np.ndarray]:
    """Crystalloids every 8 h, CRRT potassium and calcium, a few neuromuscular blocks."""
    tl = timeline(rng, s, np.ones(len(s), bool), 0.5, s.los_h, 8.0, q.off_hour_time)
    crrt = timeline(rng, s, s.crrt, s.aki_peak_h, s.aki_peak_h + 48, 6.0, 1.0)
    blocked = s.vent & (rng.random(len(s)) < 0.06)
    if blocked.sum() < 2:  # both blockers occur in every chunk with ventilated stays
        blocked |= s.vent & (np.cumsum(s.vent) <= 2)
    block = timeline(rng, s, blocked, s.vent_on + 1, s.vent_on + 13, 4.0, 1.0)
    fluid_rate = rng.uniform(50, 250, len(tl))
    block_rate = rng.uniform(0.05, 0.2, len(block))
    parts: list[tuple[Timeline, int | np.ndarray, tuple[str | None, ...], np.ndarray | None]] = [
        (tl, 225158, ("mL/hour", "mL", "02-Fluids (Crystalloids)", "Continuous IV"), fluid_rate),
        (crrt, 227536, (None, "mEq.", "05-Med Bolus", "Drug Push"), None),
        (crrt, 227525, (None, "grams", "05-Med Bolus", "Drug Push"), None),
        (
            block,
            np.where(np.unique(block.stay, return_inverse=True)[1] % 2 == 0, 221555, 222062),
            ("mg/kg/hour", "mg", "01-Drips", "Continuous Med"),
            block_rate,
        ),
    ]
    out: dict[str, list[np.ndarray]] = {k: [] for k in _ROW_KEYS}
    for part_tl, item, labels, rate in parts:
        m = len(part_tl)
        hours = rng.uniform(1, 8, m) if rate is not None else np.full(m, 1 / 60)
        amount = rate * hours if rate is not None else rng.uniform(10, 40, m)
        rates = np.full(m, np.nan) if rate is None else np.round(rate, 3)
        values = {
            "stay": part_tl.stay, "start": part_tl.hours, "end": part_tl.hours + hours,
            "itemid": np.broadcast_to(np.asarray(item), (m,)).copy(), "rate": rates,
            "amount": np.round(amount, 3), "weight": s.weight[part_tl.stay],
            "status": np.full(m, "FinishedRunning", dtype=object),
        }  # fmt: skip
        for key, label in zip(
            ("rateuom", "amountuom", "category", "description"), labels, strict=True
        ):
            values[key] = np.full(m, label, dtype=object)
        for key in _ROW_KEYS:
            out[key].append(values[key])
    return {k: np.concatenate(v) for k, v in out.items()}


def _input_columns(
    rng: np.random.Generator,
    s: StayState,
    ids: dict[str, np.ndarray],
    rows: dict[str, np.ndarray],
    orderid: np.ndarray,
    link: np.ndarray,
) -> Columns:
    stay = rows["stay"]
    start = s.intime[stay] + (np.round(rows["start"] * 60) * 60).astype(np.int64)
    end = s.intime[stay] + (np.round(rows["end"] * 60) * 60).astype(np.int64)
    end = np.maximum(end, start + 60)
    n = len(stay)
    return {
        **_ids(ids, stay),
        "caregiver_id": rng.integers(10_000, 10_500, n),
        "starttime": seconds_to_us(start),
        "endtime": seconds_to_us(end),
        "storetime": seconds_to_us(end + rng.integers(1, 30, n) * 60),
        "itemid": rows["itemid"],
        "amount": rows["amount"],
        "amountuom": rows["amountuom"],
        "rate": rows["rate"],
        "rateuom": rows["rateuom"],
        "orderid": orderid,
        "linkorderid": link,
        "ordercategoryname": rows["category"],
        "ordercomponenttypedescription": np.full(n, "Main order parameter", dtype=object),
        "ordercategorydescription": rows["description"],
        "patientweight": rows["weight"],
        "totalamount": np.full(n, 250.0),
        "totalamountuom": np.full(n, "ml", dtype=object),
        "isopenbag": np.zeros(n, dtype=np.int16),
        "continueinnextdept": np.zeros(n, dtype=np.int16),
        "statusdescription": rows["status"],
        "originalamount": rows["amount"],
        "originalrate": rows["rate"],
    }


def procedureevents_chunk(
    rng: np.random.Generator, s: StayState, ids: dict[str, np.ndarray]
) -> Columns:
    """Every procedureevents row of the chunk's stays: the rows the concepts read, then
    imaging, cultures, airway and other procedures (``mimic_procedures``), sorted by stay
    and start time."""
    concept = concept_procedure_columns(rng, s, ids)
    # the other procedures draw from their own stream, so the rows above stay as they were
    more = more_procedure_columns(rng.spawn(1)[0], s, ids)
    both = {key: np.concatenate([concept[key], more[key]]) for key in concept}
    rank = np.lexsort((both["itemid"], both["starttime"], both["stay_id"]))
    return {key: value[rank] for key, value in both.items()}


def concept_procedure_columns(
    rng: np.random.Generator, s: StayState, ids: dict[str, np.ndarray]
) -> Columns:
    """Dialysis, lines and (unused by the concepts) ventilation procedures."""
    n = len(s)
    ihd = s.ihd
    lined = rng.random(n) < 0.15
    line_kind = OTHER_LINES[(np.cumsum(lined) - 1) % len(OTHER_LINES)]  # every kind in turn
    spec: list[tuple[np.ndarray, int | np.ndarray, np.ndarray, np.ndarray, str]] = [
        (s.crrt, 225802, s.aki_peak_h - 1, rng.uniform(24, 72, n), "Dialysis"),
        (s.crrt, 224270, s.aki_peak_h - 2, np.full(n, 0.0), "Invasive Venous"),
        (s.crrt & (rng.random(n) < 0.5), 225436, s.aki_peak_h + 20, np.full(n, 0.0), "Dialysis"),
        (ihd, 225441, s.los_h * 0.5, np.full(n, 4.0), "Dialysis"),
        (s.art_line, 225752, np.full(n, 0.2), s.los_h * 0.8, "Invasive Arterial"),
        (s.pressor, 224263, s.pressor_on - 0.5, s.los_h * 0.9, "Invasive Venous"),
        (rng.random(n) < 0.06, 224264, np.full(n, 3.0), s.los_h * 0.7, "Invasive Venous"),
        (s.vent, 225792, s.vent_on, s.vent_off - s.vent_on, "Ventilation"),
        (s.niv, 225794, np.full(n, 1.0), np.full(n, 8.0), "Ventilation"),
        (lined, line_kind, np.full(n, 1.5), s.los_h * 0.6, "Invasive Venous"),
    ]
    stay = np.concatenate([np.flatnonzero(mask) for mask, *_ in spec])
    item = np.concatenate([np.broadcast_to(np.asarray(i), (n,))[mask] for mask, i, *_ in spec])
    start_h = np.concatenate([start[mask] for mask, _, start, _, _ in spec])
    dur_h = np.concatenate([dur[mask] for mask, _, _, dur, _ in spec])
    where = np.concatenate(
        [np.full(int(mask.sum()), loc, dtype=object) for mask, _, _, _, loc in spec]
    )
    start = s.intime[stay] + (np.round(start_h * 60) * 60).astype(np.int64)
    end = start + np.maximum((np.round(dur_h * 60) * 60).astype(np.int64), 1)
    order = np.lexsort((start, stay))
    m = len(order)
    return {
        **_ids(ids, stay[order]),
        "caregiver_id": rng.integers(10_000, 10_500, m),
        "starttime": seconds_to_us(start[order]),
        "endtime": seconds_to_us(end[order]),
        "storetime": seconds_to_us(end[order] + 600),
        "itemid": item[order],
        "value": np.round(np.maximum(dur_h[order], 0) * 60, 1),
        "valueuom": np.full(m, "min", dtype=object),
        "locationcategory": where[order],
        "orderid": rng.integers(1_000_000, 9_999_999, m),
        "ordercategoryname": np.full(m, "Procedures", dtype=object),
        "ordercategorydescription": np.full(m, "Process", dtype=object),
        "patientweight": s.weight[stay[order]],
        "isopenbag": np.zeros(m, dtype=np.int16),
        "continueinnextdept": np.zeros(m, dtype=np.int16),
        "statusdescription": np.full(m, "FinishedRunning", dtype=object),
    }
