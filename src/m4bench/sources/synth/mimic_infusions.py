"""icu.inputevents: the infusions, doses and intake no concept reads, at the real volume.

Real inputevents holds about 116 rows per ICU stay. The vasoactive drips, neuromuscular
blockers, CRRT additives and maintenance saline of ``mimic_treatments`` give about 13;
the rest is sedation and analgesia while ventilated, enteral feeds and water flushes,
insulin and heparin drips titrated through the day, electrolyte replacement, fluid
boluses, blood, prophylaxis and antibiotic doses.

Each :class:`Order` is charted one of three ways, as in MIMIC-IV:

* a continuous infusion (``rateuom`` set, ``run_h >= every_h``): one row per rate
  period; a rate change closes the row ('ChangeDose/Rate') and opens the next, all of
  one chain sharing the first row's ``orderid`` as ``linkorderid``;
* an intermittent infusion (``rateuom`` set, ``run_h < every_h``): a dose run over
  ``run_h`` hours, repeated every ``every_h`` hours, each its own order;
* a dose given at once (``rateuom`` None): no rate, ``endtime`` one minute (or
  ``run_h``) after ``starttime``.

Every item id and label was checked against public listings of MIMIC-IV d_items.
Rows are drawn per order with numpy over all stays of the chunk: no loop over rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from m4bench.sources.synth.core import seconds_to_us
from m4bench.sources.synth.mimic_events import timeline
from m4bench.sources.synth.mimic_latent import StayState

Columns = dict[str, Any]
_MINUTE_H = 1 / 60
NAN = float("nan")


@dataclass(frozen=True)
class Order:
    """One kind of inputevents row (see the module docstring for the three kinds)."""

    itemid: int
    category: str  # ordercategoryname
    description: str  # ordercategorydescription
    amountuom: str
    rateuom: str | None
    low: float  # rate range of continuous infusions, dose range otherwise
    high: float
    every_h: float
    run_h: float
    to_amount: float = 1.0  # continuous: amount = rate x hours x to_amount (x kg if per_kg)
    per_kg: bool = False
    total_ml: float = float("nan")


def drip(
    itemid: int, category: str, uom: tuple[str, str], rate: tuple[float, float], every_h: float,
    to_amount: float = 1.0, per_kg: bool = False, total_ml: float = 100.0,
) -> Order:  # fmt: skip
    """A continuous infusion titrated every ``every_h`` hours (``uom``: amount, rate)."""
    description = "Continuous IV" if category == CRYSTALLOIDS else "Continuous Med"
    low, high = rate
    return Order(itemid, category, description, *uom, low, high, every_h, every_h, to_amount,
                 per_kg, total_ml)  # fmt: skip


def doses(
    itemid: int, category: str, description: str, uom: tuple[str, str | None],
    dose: tuple[float, float], every_h: float, run_h: float = 1 / 60, total_ml: float = NAN,
) -> Order:  # fmt: skip
    """A dose every ``every_h`` hours, given at once or run over ``run_h`` hours."""
    return Order(itemid, category, description, *uom, *dose, every_h, run_h, total_ml=total_ml)


DRIPS, CRYSTALLOIDS, BOLUS = "01-Drips", "02-Fluids (Crystalloids)", "03-IV Fluid Bolus"
PUSH, ORAL, ANTIBIOTIC = "05-Med Bolus", "14-Oral/Gastric Intake", "08-Antibiotics (IV)"
MG, ML, DOSE, UNITS = ("mg", None), ("mL", None), ("dose", None), ("units", None)
IV = "Continuous IV"
# (order, which stays, share of them, first row this many hours into the window)
Plan = tuple[Order, str, float, float]
PLANS: tuple[Plan, ...] = (
    (drip(222168, DRIPS, ("mg", "mcg/kg/min"), (5, 50), 1.5, 0.06, True), "vent", 0.75, 0.0),
    (drip(225942, DRIPS, ("mg", "mcg/hour"), (25, 200), 2, 0.001), "vent", 0.7, 0.5),
    (drip(225150, DRIPS, ("mcg", "mcg/kg/hour"), (0.2, 1.2), 3, 1, True), "vent", 0.25, 6.0),
    (drip(221668, DRIPS, ("mg", "mg/hour"), (1, 8), 4), "vent", 0.15, 1.0),
    (
        drip(225936, "13-Enteral Nutrition", ("mL", "mL/hour"), (20, 70), 2, total_ml=1000),
        "vent",
        0.8,
        12.0,
    ),
    (doses(225797, ORAL, "Bolus", ML, (30, 250), 3), "vent", 0.7, 13.0),
    (drip(223258, DRIPS, ("units", "units/hour"), (1, 10), 1), "all", 0.18, 1.0),
    (doses(223262, "06-Insulin (Non IV)", "Drug Push", UNITS, (2, 10), 6), "all", 0.35, 2.0),
    (drip(225152, DRIPS, ("units", "units/hour"), (500, 1800), 4, total_ml=250), "all", 0.12, 2.0),
    (doses(225975, "11-Prophylaxis (Non IV)", "Drug Push", DOSE, (1, 1), 8), "all", 0.6, 3.0),
    (
        doses(225910, "10-Prophylaxis (IV)", "Drug Push", DOSE, (1, 1), 12, total_ml=10),
        "all",
        0.6,
        2.5,
    ),
    (doses(221744, PUSH, "Drug Push", ("mcg", None), (25, 100), 2), "all", 0.5, 1.5),
    (doses(225166, CRYSTALLOIDS, IV, ("mEq", "mEq/hour"), (10, 40), 8, 2, 100), "all", 0.65, 4.0),
    (doses(222011, CRYSTALLOIDS, IV, ("grams", "grams/hour"), (1, 4), 24, 2, 100), "all", 0.5, 5.0),
    (
        doses(221456, CRYSTALLOIDS, IV, ("grams", "grams/hour"), (1, 2), 24, 1, 100),
        "all",
        0.25,
        6.0,
    ),
    (
        doses(225828, BOLUS, "Bolus", ("mL", "mL/hour"), (500, 1000), 24, 0.5, 1000),
        "all",
        0.35,
        0.5,
    ),
    (drip(220949, CRYSTALLOIDS, ("mL", "mL/hour"), (50, 150), 8, total_ml=1000), "all", 0.2, 1.0),
    (doses(226452, ORAL, "Bolus", ML, (60, 480), 2.5), "all", 0.6, 3.0),
    (
        doses(225168, "07-Blood Products", IV, ("mL", "mL/hour"), (300, 375), 24, 2, 375),
        "all",
        0.12,
        3.0,
    ),
    (doses(226089, CRYSTALLOIDS, IV, ("mL", "mL/hour"), (50, 100), 8, 0.5, 100), "all", 0.5, 1.5),
    (doses(228315, PUSH, "Drug Push", MG, (650, 1000), 6, 0.25), "all", 0.25, 2.0),
    (doses(225154, PUSH, "Drug Push", MG, (2, 4), 4), "all", 0.15, 1.0),  # morphine
    (doses(221833, PUSH, "Drug Push", MG, (0.2, 1), 4), "all", 0.12, 2.0),  # hydromorphone
    (doses(225974, PUSH, "Drug Push", MG, (2.5, 5), 6), "all", 0.2, 3.0),  # metoprolol
    (doses(221794, PUSH, "Drug Push", MG, (20, 80), 12), "all", 0.3, 4.0),  # furosemide
    (doses(225798, ANTIBIOTIC, "Drug Push", DOSE, (1, 1), 12, 1, 250), "infected", 0.7, 0.0),
    (doses(225893, ANTIBIOTIC, "Drug Push", DOSE, (1, 1), 8, 0.5, 100), "infected", 0.45, 0.5),
    (doses(225851, ANTIBIOTIC, "Drug Push", DOSE, (1, 1), 8, 0.5, 100), "infected", 0.3, 1.0),
)
INFUSION_ITEMS = tuple(plan[0].itemid for plan in PLANS)


def _window(s: StayState, group: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(eligible stays, window start hour, window end hour) of a group of stays."""
    if group == "vent":
        return s.vent, s.vent_on, np.minimum(s.vent_off, s.los_h)
    if group == "infected":
        return s.infection, np.maximum(s.infection_h, 0.5), s.los_h
    return np.ones(len(s), bool), np.full(len(s), 0.5), s.los_h


def _order_rows(rng: np.random.Generator, s: StayState, index: int) -> dict[str, np.ndarray]:
    """The rows of ``PLANS[index]`` for the chunk's stays, sorted by stay and time."""
    order, group, share, lag = PLANS[index]
    eligible, start, end = _window(s, group)
    gets = eligible & (rng.random(len(s)) < share)
    tl = timeline(rng, s, gets, start + lag, end - _MINUTE_H * 2, order.every_h, 0.0)
    n = len(tl)
    stay = tl.stay
    first = np.r_[True, stay[1:] != stay[:-1]] if n else np.zeros(0, bool)
    last = np.r_[stay[1:] != stay[:-1], True] if n else np.zeros(0, bool)
    run = np.full(n, order.run_h)
    level = rng.uniform(order.low, order.high, len(s))[stay]
    value = np.clip(level * rng.lognormal(0.0, 0.2, n), order.low, order.high)
    weight = s.weight[stay]
    chained = order.rateuom is not None and order.run_h >= order.every_h
    if chained:
        # only the last period of a chain stops early, at the end of the window
        run = np.where(last, np.clip(end[stay] - tl.hours, _MINUTE_H, order.run_h), run)
        amount = value * run * order.to_amount * (weight if order.per_kg else 1.0)
        rate = value
        status = np.where(
            last, np.where(rng.random(n) < 0.6, "FinishedRunning", "Stopped"), "ChangeDose/Rate"
        )
    else:
        amount = np.round(value) if order.high > 5 else value
        rate = amount / run if order.rateuom is not None else np.full(n, np.nan)
        status = np.full(n, "FinishedRunning")
    chain = np.cumsum(first) - 1 if chained else np.arange(n)
    return {
        "stay": stay, "start": tl.hours, "end": tl.hours + run,
        "itemid": np.full(n, order.itemid), "rate": np.round(rate, 3),
        "amount": np.round(amount, 3),
        "weight": weight, "status": status.astype(object), "chain": chain,
        "plan": np.full(n, index),
    }  # fmt: skip


def infusion_columns(
    rng: np.random.Generator, s: StayState, ids: dict[str, np.ndarray], first_order: int
) -> Columns:
    """The inputevents columns of every order of :data:`PLANS` for the chunk's stays;
    ``orderid`` counts up from ``first_order``."""
    parts = [_order_rows(rng, s, index) for index in range(len(PLANS))]
    rows = {key: np.concatenate([p[key] for p in parts]) for key in parts[0]}
    chains = np.array([int(p["chain"].max()) + 1 if len(p["chain"]) else 0 for p in parts])
    offset = np.repeat(np.cumsum(chains) - chains, [len(p["chain"]) for p in parts])
    chain = rows["chain"] + offset
    orderid = first_order + np.arange(len(chain))
    _, head = np.unique(chain, return_index=True)  # each chain's first row
    link = first_order + head[chain]
    return _columns(rng, s, ids, rows, orderid, link)


def _labels(plan: np.ndarray, field: str) -> np.ndarray:
    values: np.ndarray = np.array([getattr(p[0], field) for p in PLANS], dtype=object)
    out: np.ndarray = values[plan]
    return out


def _columns(
    rng: np.random.Generator,
    s: StayState,
    ids: dict[str, np.ndarray],
    rows: dict[str, np.ndarray],
    orderid: np.ndarray,
    link: np.ndarray,
) -> Columns:
    stay, plan = rows["stay"], rows["plan"]
    start = s.intime[stay] + (np.round(rows["start"] * 60) * 60).astype(np.int64)
    end = np.maximum(
        s.intime[stay] + (np.round(rows["end"] * 60) * 60).astype(np.int64), start + 60
    )
    n = len(stay)
    total = _labels(plan, "total_ml").astype(float)
    return {
        "subject_id": ids["subject_id"][stay],
        "hadm_id": ids["hadm_id"][stay],
        "stay_id": ids["stay_id"][stay],
        "caregiver_id": rng.integers(10_000, 10_500, n),
        "starttime": seconds_to_us(start),
        "endtime": seconds_to_us(end),
        "storetime": seconds_to_us(end + rng.integers(1, 30, n) * 60),
        "itemid": rows["itemid"],
        "amount": rows["amount"],
        "amountuom": _labels(plan, "amountuom"),
        "rate": rows["rate"],
        "rateuom": _labels(plan, "rateuom"),
        "orderid": orderid,
        "linkorderid": link,
        "ordercategoryname": _labels(plan, "category"),
        "ordercomponenttypedescription": np.full(n, "Main order parameter", dtype=object),
        "ordercategorydescription": _labels(plan, "description"),
        "patientweight": rows["weight"],
        "totalamount": total,
        "totalamountuom": np.array([None, "ml"], dtype=object)[(~np.isnan(total)).astype(int)],
        "isopenbag": np.zeros(n, dtype=np.int16),
        "continueinnextdept": np.zeros(n, dtype=np.int16),
        "statusdescription": rows["status"],
        "originalamount": rows["amount"],
        "originalrate": rows["rate"],
    }
