"""icu.ingredientevents: the water and energy content of each inputevents row.

Every input row gives a 'Free Water' row in mL: the volume itself for inputs charted in
mL, the carrier volume (drug amount over a standard bag concentration) for drugs. Inputs
that carry energy (dextrose, propofol) and drips mixed in dextrose 5 % add a 'Calories'
row in Kcal. Ingredient rows share the input row's stay, times, caregiver, ``orderid``,
``linkorderid`` and status; rates follow the input's (per hour), boluses have none.
The rules read only the input's item, amount and units, so any item the inputevents
generator writes gets its ingredients.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa

from m4bench.sources.synth.mimic_orders_vocab import (
    CALORIES,
    CALORIES_PER_ML,
    CARRIER_CONCENTRATION,
    CARRIER_CONCENTRATION_BY_ITEM,
    D5W_CARRIER_SHARE,
    DEFAULT_CARRIER_CONCENTRATION,
    FREE_WATER,
    MAX_CARRIER_ML,
)
from m4bench.sources.synth.text_columns import pick

Columns = dict[str, Any]
_SHARED = (
    "subject_id", "hadm_id", "stay_id", "caregiver_id", "starttime", "endtime", "storetime",
    "orderid", "linkorderid", "statusdescription",
)  # fmt: skip
_D5W_KCAL_PER_ML = 0.17


def _text(values: Any) -> np.ndarray:
    if isinstance(values, pa.Array | pa.ChunkedArray):
        values = values.to_numpy(zero_copy_only=False)
    return np.asarray(values, dtype=object).astype(str)


def _concentration(item: np.ndarray, unit: np.ndarray) -> np.ndarray:
    """Drug per mL of each row's carrier: by item where known, else by amount unit."""
    units, code = np.unique(unit, return_inverse=True)
    by_unit = np.array([CARRIER_CONCENTRATION.get(u, DEFAULT_CARRIER_CONCENTRATION) for u in units])
    items, where = np.unique(item, return_inverse=True)
    by_item = np.array([CARRIER_CONCENTRATION_BY_ITEM.get(int(i), np.nan) for i in items])
    known = by_item[where]
    out: np.ndarray = np.where(np.isnan(known), by_unit[code], known)
    return out


def _water(inputs: Columns) -> tuple[np.ndarray, np.ndarray]:
    """(mL given, mL per hour) of each input row; NaN rate for boluses.

    Inputs in mL give their own volume; a drug gives its carrier: the bag's volume for a
    bolus from a small bag, else its amount over the carrier's concentration.
    """
    amount = np.asarray(inputs["amount"], dtype=float)
    rate = np.asarray(inputs["rate"], dtype=float)
    unit = _text(inputs["amountuom"])
    in_ml = np.char.lower(unit) == "ml"
    item = np.asarray(inputs["itemid"], dtype=np.int64)
    carrier = np.clip(amount / _concentration(item, unit), 1, MAX_CARRIER_ML)
    bag = np.asarray(inputs.get("totalamount", np.full(len(item), np.nan)), dtype=float)
    small_bag = np.isnan(rate) & (bag > 0) & (bag <= MAX_CARRIER_ML)
    volume = np.where(in_ml, amount, np.where(small_bag, bag, carrier))
    start = np.asarray(inputs["starttime"]).astype("datetime64[s]").astype(np.int64)
    end = np.asarray(inputs["endtime"]).astype("datetime64[s]").astype(np.int64)
    hours = np.maximum(end - start, 60) / 3600
    ml_rate = np.where(np.isnan(rate), np.nan, np.where(in_ml & (rate > 0), rate, volume / hours))
    return np.round(volume, 2), np.round(ml_rate, 2)


def ingredientevents_chunk(rng: np.random.Generator, inputs: Columns) -> Columns:
    """The ingredient rows of one chunk's inputevents columns (as written)."""
    n = len(inputs["orderid"])
    volume, ml_rate = _water(inputs)
    item = np.asarray(inputs["itemid"], dtype=np.int64)
    items, where = np.unique(item, return_inverse=True)
    kcal_per_ml = np.array([CALORIES_PER_ML.get(int(i), 0.0) for i in items])[where]
    link = np.asarray(inputs["linkorderid"], dtype=np.int64)
    drip = ~np.isnan(np.asarray(inputs["rate"], dtype=float)) & (
        np.char.lower(_text(inputs["amountuom"])) != "ml"
    )
    # a whole infusion chain shares its bag, so the carrier is drawn per linkorderid
    d5w = drip & (_chain_draw(rng, link) < D5W_CARRIER_SHARE)
    kcal_per_ml = np.where(d5w, _D5W_KCAL_PER_ML, kcal_per_ml)
    energetic = np.flatnonzero(kcal_per_ml > 0)
    rows = np.concatenate([np.arange(n), energetic])
    water = np.arange(len(rows)) < n
    amount = np.where(water, volume[rows], np.round(volume[rows] * kcal_per_ml[rows], 2))
    rate = np.where(water, ml_rate[rows], np.round(ml_rate[rows] * kcal_per_ml[rows], 2))
    order = np.lexsort((~water, rows))
    rows, water, amount, rate = rows[order], water[order], amount[order], rate[order]
    out: Columns = {key: _take(inputs[key], rows) for key in _SHARED}
    no_rate = np.isnan(rate)
    out.update({
        "itemid": np.where(water, FREE_WATER, CALORIES),
        "amount": amount,
        "amountuom": pick(("mL", "Kcal"), (~water).astype(np.int64)),
        "rate": rate,
        "rateuom": pick(("mL/hour", "Kcal/hour"), (~water).astype(np.int64), null=no_rate),
        "originalamount": amount,
        "originalrate": rate,
    })  # fmt: skip
    return out


def _chain_draw(rng: np.random.Generator, link: np.ndarray) -> np.ndarray:
    """One uniform draw per infusion chain, repeated on each of its rows."""
    chains, chain = np.unique(link, return_inverse=True)
    draws: np.ndarray = rng.random(len(chains))[chain]
    return draws


def _take(values: Any, rows: np.ndarray) -> Any:
    if isinstance(values, pa.Array | pa.ChunkedArray):
        return values.take(pa.array(rows))
    return np.asarray(values)[rows]
