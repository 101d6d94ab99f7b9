"""hosp.prescriptions and hosp.pharmacy lines: routine drugs of every admission, and columns.

A line is (owner, start hour, duration hours, drug, route, drug_type); the owner is an
ICU stay or a ward admission, and hours count from the owner's base time (ICU intime or
admission time). Routine lines come from the formulary at a rate per day of the span
they cover, front-loaded towards the start (most orders are written on admission).
Their frequency, and with it ``doses_per_24_hrs``, is fixed per drug and route.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np
import pyarrow as pa

from m4bench.sources.synth.core import QuirkRates, seconds_to_us
from m4bench.sources.synth.mimic_formulary import (
    DEFAULT_FREQUENCY,
    FREQUENCY_DOSES,
    INFECTION_FREQUENCIES,
    ROUTINE_DRUGS,
    line_details,
    routine_drugs,
)
from m4bench.sources.synth.text_columns import dash_ids

Columns = dict[str, Any]
Part = tuple[np.ndarray, ...]  # owner, start_h, duration_h, drug, route, drug_type
Pairs = list[tuple[str, str]]


def minutes(hours: np.ndarray) -> np.ndarray:
    """Hours as whole minutes, in seconds."""
    return (np.round(hours * 60) * 60).astype(np.int64)


def routine_lines(
    rng: np.random.Generator,
    start_h: np.ndarray,
    end_h: np.ndarray,
    base: float,
    per_day: float,
    icu: bool,
) -> Part:
    """Routine drug lines of owners whose span runs ``start_h`` to ``end_h``.

    Each owner gets Poisson(``base`` + ``per_day`` x days) lines (none when its span ends
    before it starts, as for organ-donor admissions), drawn from the ward or
    the ICU shares of the formulary.
    """
    table = routine_drugs()
    span = np.maximum(end_h - start_h, 1.0)
    count = np.where(end_h >= start_h, rng.poisson(base + per_day * span / 24.0), 0)
    owner = np.repeat(np.arange(len(span)), count)
    m = len(owner)
    share = table.icu_share if icu else table.ward_share
    drug = rng.choice(len(share), size=m, p=share / share.sum())
    room = np.maximum(end_h - start_h - 1 / 60, 0.0)  # start a minute before the end at most
    start = start_h[owner] + rng.beta(0.7, 1.6, m) * room[owner]
    frequency = table.frequency[drug]
    once = frequency == "ONCE"
    duration = np.where(once, rng.uniform(0.5, 2.0, m), rng.lognormal(np.log(14.0), 0.8, m))
    duration = np.minimum(duration, np.maximum(end_h[owner] - start, 1.0))
    return owner, start, duration, table.drug[drug], table.route[drug].copy(), table.drug_type[drug]


@cache
def _frequency_maps() -> tuple[dict[tuple[str, str], str], dict[str, str]]:
    by_pair = {(str(r[0]), str(r[1])): str(r[2]) for r in ROUTINE_DRUGS}
    by_name = dict(INFECTION_FREQUENCIES)
    for r in reversed(ROUTINE_DRUGS):
        by_name.setdefault(str(r[0]), str(r[2]))
    return by_pair, by_name


def drug_route_pairs(
    drug: np.ndarray, route: np.ndarray
) -> tuple[list[tuple[str, str]], np.ndarray]:
    """The distinct (drug, route) pairs of lines and each line's pair (route None as 'None')."""
    drugs = pa.array(drug, type=pa.string(), from_pandas=True).dictionary_encode()
    routes = pa.array(route, type=pa.string(), from_pandas=True).dictionary_encode()
    d = drugs.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    r = routes.indices.fill_null(-1).to_numpy(zero_copy_only=False).astype(np.int64)
    codes, index = np.unique(d * (len(routes.dictionary) + 1) + r + 1, return_inverse=True)
    names = drugs.dictionary.to_pylist()
    ways = ["None", *(str(w) for w in routes.dictionary.to_pylist())]
    stride = len(routes.dictionary) + 1
    pairs = [(str(names[c // stride]), ways[c % stride]) for c in codes.tolist()]
    return pairs, index


def frequency_of(drug: np.ndarray, route: np.ndarray) -> np.ndarray:
    """The pharmacy frequency of each line: by drug and route, else by drug name."""
    pairs, index = drug_route_pairs(drug, route)
    out: np.ndarray = np.array(_pair_frequencies(pairs), dtype=object)[index]
    return out


def _pair_frequencies(pairs: Pairs) -> list[str]:
    by_pair, by_name = _frequency_maps()
    return [by_pair.get(pair, by_name.get(pair[0], DEFAULT_FREQUENCY)) for pair in pairs]


def prescription_columns(
    rng: np.random.Generator,
    base_time: np.ndarray,
    ids: dict[str, np.ndarray],
    parts: list[Part],
    first_pharmacy: int,
    q: QuirkRates,
) -> Columns:
    """prescriptions columns of ``parts``, sorted by owner, start and drug.

    ``base_time`` is each owner's epoch second that line hours count from; pharmacy_id
    (and poe_seq) run from ``first_pharmacy``.
    """
    owner, start_h, dur_h, drug, route, drug_type = (
        np.concatenate([p[i] for p in parts]) for i in range(6)
    )
    route = route.astype(object)
    route[_null_routes(rng, [len(p[0]) for p in parts], q.null_route_antibiotic)] = None
    start = base_time[owner] + minutes(start_h)
    order = np.lexsort((drug.astype(str), start, owner))
    owner, start, dur_h, drug, route, drug_type = (
        a[order] for a in (owner, start, dur_h, drug, route, drug_type)
    )
    m = len(order)
    subject = ids["subject_id"][owner]
    pharmacy = first_pharmacy + np.arange(m)
    pairs, pair = drug_route_pairs(drug, route)
    doses = np.array([FREQUENCY_DOSES[f] for f in _pair_frequencies(pairs)])
    return {
        "subject_id": subject,
        "hadm_id": ids["hadm_id"][owner],
        "pharmacy_id": pharmacy,
        "poe_id": dash_ids(subject, pharmacy).to_numpy(zero_copy_only=False),
        "poe_seq": pharmacy,
        "starttime": seconds_to_us(start),
        "stoptime": seconds_to_us(start + minutes(dur_h)),
        "drug_type": drug_type,
        "drug": drug,
        **line_details(pairs, pair),
        "doses_per_24_hrs": doses[pair],
        "route": route,
    }


def _null_routes(rng: np.random.Generator, sizes: list[int], rate: float) -> np.ndarray:
    """Line positions with a NULL route: ``rate`` of each part exactly (rounded)."""
    picked = [np.zeros(0, dtype=np.int64)]
    offset = 0
    for size in sizes:
        picked.append(offset + rng.choice(size, size=round(rate * size), replace=False))
        offset += size
    return np.concatenate(picked)


def _proc_type(rx: Columns) -> np.ndarray:
    route = np.asarray(rx["route"], dtype=object)
    drug_type = np.asarray(rx["drug_type"], dtype=object)
    out = np.full(len(route), "Unit Dose", dtype=object)
    out[route == "IV"] = "IV Piggyback"
    out[(route == "IV DRIP") | (drug_type != "MAIN")] = "IV Large Volume"
    return out


def pharmacy_rows(rng: np.random.Generator, rx: Columns) -> Columns:
    """One pharmacy order per prescription line, sharing its pharmacy_id and poe_id.

    Its frequency is the line's (so it matches ``doses_per_24_hrs``).
    """
    n = len(rx["pharmacy_id"])
    start = rx["starttime"]
    frequency = frequency_of(np.asarray(rx["drug"]), np.asarray(rx["route"], dtype=object))
    status = np.array(("Discontinued", "Inactive", "Discontinued via patient discharge"))
    return {
        "subject_id": rx["subject_id"],
        "hadm_id": rx["hadm_id"],
        "pharmacy_id": rx["pharmacy_id"],
        "poe_id": rx["poe_id"],
        "starttime": start,
        "stoptime": rx["stoptime"],
        "medication": rx["drug"],
        "proc_type": _proc_type(rx),
        "status": status[rng.choice(3, size=n, p=(0.6, 0.15, 0.25))].astype(object),
        "entertime": start - np.timedelta64(10, "m"),
        "verifiedtime": start - np.timedelta64(5, "m"),
        "route": rx["route"],
        "frequency": frequency,
        "doses_per_24_hrs": rx["doses_per_24_hrs"],
        "expiration_value": np.full(n, 7, dtype=np.int64),
        "expiration_unit": np.full(n, "Days", dtype=object),
        "dispensation": np.full(n, "Omnicell", dtype=object),
    }
