"""hosp.emar and hosp.emar_detail: the administrations of each prescription line.

Every dose of a line is scheduled by its ``doses_per_24_hrs`` from its start to its stop
(or the discharge, whichever comes first); the nurse charts each one ('Administered',
'Not Given', 'Hold Dose', 'Delayed Administered', ...). Flushes chart 'Flushed' or
'Not Flushed', sliding-scale insulin may be 'Not Given per Sliding Scale', and a drip
(route 'IV DRIP') is 'Started', checked every few hours ('Confirmed', 'Rate Change') and
'Stopped'. Each emar row carries the line's ``poe_id`` and ``pharmacy_id``.

emar_detail has a parent row per administration (``parent_field_ordinal`` NULL: dose
due and given, route, infusion rate) and, when something was given, one row per product
('1.1', and '1.2' for the diluent of a drug reconstituted from a vial).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from m4bench.sources.synth.core import group_arange, seconds_to_us
from m4bench.sources.synth.mimic_cohort import HOUR
from m4bench.sources.synth.mimic_orders_vocab import (
    ADMINISTRATION_TYPES,
    DEFAULT_ADMINISTRATION_TYPE,
    DEFAULT_DOSE,
    DILUENTS,
    DRUG_DOSES,
    EVENTS_FLUSH,
    EVENTS_INFUSION_CHECK,
    EVENTS_SCHEDULED,
    EVENTS_SLIDING_SCALE,
    FLUSH_DRUGS,
    GIVEN_EVENTS,
    SLIDING_SCALE_DRUGS,
)
from m4bench.sources.synth.text_columns import dash_ids, number_text, pick, vocab, weighted

Columns = dict[str, Any]
INFUSION_CHECK_HOURS = 4.0
DILUENT_ML = 100.0
KIND_SCHEDULED, KIND_FLUSH, KIND_SLIDING, KIND_INFUSION = range(4)
EVENT_NAMES = tuple(dict.fromkeys(
    [name for name, _ in EVENTS_SCHEDULED + EVENTS_FLUSH + EVENTS_SLIDING_SCALE]
    + ["Started", *(name for name, _ in EVENTS_INFUSION_CHECK), "Stopped"]
))  # fmt: skip
_EVENTS = vocab(EVENT_NAMES)
_GIVEN = np.isin(np.array(EVENT_NAMES), GIVEN_EVENTS)
_DELAYED = np.array(EVENT_NAMES) == "Delayed Administered"
_PARTIAL = np.array(EVENT_NAMES) == "Partial Administered"


def _seconds(values: Any) -> np.ndarray:
    return np.asarray(values).astype("datetime64[s]").astype(np.int64)


@dataclass(frozen=True)
class _Lines:
    """The prescription lines of a chunk with what their administrations need."""

    start: np.ndarray
    end: np.ndarray  # stop, or discharge if earlier
    interval: np.ndarray  # seconds between doses
    kind: np.ndarray
    drug: np.ndarray  # index into ``drugs``
    drugs: list[str]
    product: np.ndarray  # index into ``products``
    products: list[tuple[str, ...]]  # the lines' dose and product columns, by drug


def _lines(rx: Columns, stay_hadm: np.ndarray, stay_disch: np.ndarray) -> _Lines:
    start, stop = _seconds(rx["starttime"]), _seconds(rx["stoptime"])
    by_hadm = np.argsort(stay_hadm, kind="stable")
    where = by_hadm[np.searchsorted(stay_hadm[by_hadm], np.asarray(rx["hadm_id"]))]
    end = np.minimum(stop, stay_disch[where])
    drugs, drug = np.unique(np.asarray(rx["drug"]).astype(str), return_inverse=True)
    route = np.asarray(rx["route"], dtype=object)
    kind = np.full(len(start), KIND_SCHEDULED)
    kind[np.isin(drugs[drug], FLUSH_DRUGS)] = KIND_FLUSH
    kind[np.isin(drugs[drug], SLIDING_SCALE_DRUGS)] = KIND_SLIDING
    kind[route == "IV DRIP"] = KIND_INFUSION
    per_day = np.maximum(np.asarray(rx["doses_per_24_hrs"], dtype=float), 1.0)
    interval = np.where(kind == KIND_INFUSION, INFUSION_CHECK_HOURS * HOUR, 24 * HOUR / per_day)
    products, product = _products(rx, drugs[drug])
    names = [str(d) for d in drugs]
    return _Lines(start, end, interval.astype(np.int64), kind, drug, names, product, products)


# The prescription columns an administration repeats, in DRUG_DOSES order.
_PRODUCT_COLUMNS = (
    "dose_val_rx",
    "dose_unit_rx",
    "prod_strength",
    "form_unit_disp",
    "form_val_disp",
    "formulary_drug_cd",
)


def _products(rx: Columns, drug: np.ndarray) -> tuple[list[tuple[str, ...]], np.ndarray]:
    """Each line's dose and product as the prescription states them (distinct tuples and
    the line's index among them); a line that does not state all of them with a numeric
    dose and amount takes its drug's usual ones (DRUG_DOSES, else DEFAULT_DOSE)."""
    present = [name for name in _PRODUCT_COLUMNS if name in rx]
    stated = [np.asarray(rx[name], dtype=object).astype(str) for name in present]
    keys = np.asarray(drug).astype(str)
    for column in stated:  # a handful of columns, each joined in one vectorized call
        keys = np.char.add(np.char.add(keys, "\x1f"), column)
    _, first, product = np.unique(keys, return_index=True, return_inverse=True)
    products = []
    for line in first:  # one per distinct product, not per row
        own = {name: column[line] for name, column in zip(present, stated, strict=True)}
        row = tuple(own.get(name, "None") for name in _PRODUCT_COLUMNS)
        usable = "None" not in row and _numeric(row[0]) and _numeric(row[4])
        products.append(row if usable else DRUG_DOSES.get(str(drug[line]), DEFAULT_DOSE))
    return products, product.astype(np.int64)


def _numeric(text: str | None) -> bool:
    try:
        return text is not None and float(text) == float(text)
    except ValueError:
        return False


def _events(rng: np.random.Generator, lines: _Lines) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(line, schedule time, event index) of every administration, in line order."""
    span = np.maximum(lines.end - lines.start, 0)
    count = np.where(lines.end >= lines.start, 1 + span // lines.interval, 0)
    infusion = lines.kind == KIND_INFUSION
    count = np.where(infusion & (count > 0), count + 1, count)  # a drip also stops
    line = np.repeat(np.arange(len(count)), count)
    k = group_arange(count)
    first = (lines.start + HOUR - 1) // HOUR * HOUR  # doses fall on the hour
    due = np.where(infusion[line], lines.start[line], first[line]) + k * lines.interval[line]
    last = k == count[line] - 1
    due = np.where(infusion[line] & last, lines.end[line], np.minimum(due, lines.end[line]))
    m = len(line)
    index = {name: i for i, name in enumerate(EVENT_NAMES)}
    picks = {
        KIND_SCHEDULED: EVENTS_SCHEDULED,
        KIND_FLUSH: EVENTS_FLUSH,
        KIND_SLIDING: EVENTS_SLIDING_SCALE,
        KIND_INFUSION: EVENTS_INFUSION_CHECK,
    }
    event = np.zeros(m, dtype=np.int64)
    kind = lines.kind[line]
    for kind_id, shares in picks.items():  # four kinds, not rows
        mine = np.flatnonzero(kind == kind_id)
        codes = np.array([index[name] for name, _ in shares])
        event[mine] = codes[weighted(rng, shares, len(mine))]
    event[infusion[line] & (k == 0)] = index["Started"]
    event[infusion[line] & last & (k > 0)] = index["Stopped"]
    return line, due, event


def emar_tables(
    rng: np.random.Generator,
    rx: Columns,
    stay_hadm: np.ndarray,
    stay_disch: np.ndarray,
    first_emar: int,
) -> tuple[Columns, Columns]:
    """(emar, emar_detail) of the prescription lines ``rx`` of one chunk of ICU stays.

    ``stay_hadm`` / ``stay_disch`` give each stay's admission and discharge time (epoch
    seconds); ``emar_seq`` runs from ``first_emar``.
    """
    lines = _lines(rx, stay_hadm, stay_disch)
    line, due, event = _events(rng, lines)
    m = len(line)
    jitter = np.where(_DELAYED[event], rng.integers(60, 181, m), rng.integers(-30, 31, m)) * 60
    jitter[lines.kind[line] == KIND_INFUSION] = 0
    chart = np.minimum(due + jitter, lines.end[line])
    chart = np.maximum(chart, lines.start[line])
    subject = np.asarray(rx["subject_id"], dtype=np.int64)[line]
    order = np.lexsort((event, chart, subject))
    line, due, event, chart, subject = (
        line[order],
        due[order],
        event[order],
        chart[order],
        subject[order],
    )
    seq = first_emar + np.arange(m)
    emar_id = dash_ids(subject, seq)
    pharmacy = np.asarray(rx["pharmacy_id"], dtype=np.int64)[line]
    emar = {
        "subject_id": subject,
        "hadm_id": np.asarray(rx["hadm_id"])[line],
        "emar_id": emar_id,
        "emar_seq": seq,
        "poe_id": pa.array(np.asarray(rx["poe_id"], dtype=object)[line], type=pa.string()),
        "pharmacy_id": pharmacy,
        "charttime": seconds_to_us(chart),
        "medication": pick(lines.drugs, lines.drug[line]),
        "event_txt": _EVENTS.take(pa.array(event)),
        "scheduletime": seconds_to_us(due),
        "storetime": seconds_to_us(chart + rng.integers(0, 16, m) * 60),
    }
    route = np.asarray(rx["route"], dtype=object)[line]
    detail = _details(rng, lines, line, event, route, subject, emar_id, seq, pharmacy)
    return emar, detail


def _drug_table(rows: list[tuple[str, ...]]) -> dict[str, Any]:
    return {
        "dose": np.array([float(r[0]) for r in rows]),
        "dose_unit": vocab([r[1] for r in rows]),
        "description": vocab([r[2] for r in rows]),
        "unit": vocab([r[3] for r in rows]),
        "amount": np.array([float(r[4]) for r in rows]),
        "code": vocab([r[5] for r in rows]),
        "vial": np.array([r[3] == "VIAL" for r in rows]),
    }


def _details(rng: np.random.Generator, lines: _Lines, line: np.ndarray, event: np.ndarray,
             route: np.ndarray, subject: np.ndarray, emar_id: pa.Array, seq: np.ndarray,
             pharmacy: np.ndarray) -> Columns:  # fmt: skip
    """Parent rows for every administration, then product rows for what was given."""
    table = _drug_table(lines.products)
    drug = lines.product[line]
    given = _GIVEN[event]
    diluted = given & table["vial"][drug] & (route == "IV")
    products = np.where(given, 1 + diluted, 0)
    prod = np.repeat(np.arange(len(line)), products)
    parent = _parent_columns(rng, lines, line, event, route, table)
    product = _product_columns(
        rng, table, drug[prod], _PARTIAL[event][prod], group_arange(products)
    )
    rows = np.concatenate([np.arange(len(line)), prod])
    columns: Columns = {
        "subject_id": subject[rows],
        "emar_id": emar_id.take(pa.array(rows)),
        "emar_seq": seq[rows],
        "pharmacy_id": pharmacy[rows],
    }
    for name in (*parent, *product):
        first = parent.get(name, pa.nulls(len(line), pa.string()))
        then = product.get(name, pa.nulls(len(prod), pa.string()))
        columns[name] = pa.concat_arrays([first, then])
    return columns


def _parent_columns(rng: np.random.Generator, lines: _Lines, line: np.ndarray, event: np.ndarray,
                    route: np.ndarray, table: dict[str, Any]) -> dict[str, pa.Array]:  # fmt: skip
    m = len(line)
    drug = lines.product[line]
    given = _GIVEN[event]
    infused = (lines.kind[line] == KIND_INFUSION) & given
    dose = table["dose"][drug]
    route_names, route_code = np.unique(route.astype(str), return_inverse=True)
    admin = [ADMINISTRATION_TYPES.get(r, DEFAULT_ADMINISTRATION_TYPE) for r in route_names]
    return {
        "administration_type": pick(admin, route_code),
        "complete_dose_not_given": pick(
            ("No", "Yes"), _PARTIAL[event].astype(np.int64), null=~given
        ),
        "dose_due": number_text(dose),
        "dose_due_unit": table["dose_unit"].take(pa.array(drug)),
        "dose_given": number_text(np.where(_PARTIAL[event], dose / 2, dose), null=~given),
        "dose_given_unit": table["dose_unit"].take(pa.array(drug, mask=~given)),
        "infusion_rate": number_text(np.round(rng.uniform(5, 50, m), 1), null=~infused),
        "infusion_rate_unit": pick(("mcg/kg/min",), np.zeros(m, np.int64), null=~infused),
        "route": pa.array(route, type=pa.string()),
    }


def _product_columns(rng: np.random.Generator, table: dict[str, Any], drug: np.ndarray,
                     partial: np.ndarray, ordinal: np.ndarray) -> dict[str, pa.Array]:  # fmt: skip
    """One row per product given: the drug ('1.1') and a vial's diluent ('1.2')."""
    second = ordinal == 1
    diluent = rng.integers(0, len(DILUENTS), len(drug))

    def with_diluent(column: pa.Array, diluent_values: pa.Array) -> pa.Array:
        chosen: pa.Array = pc.if_else(pa.array(second), diluent_values, column)
        return chosen

    amount = np.where(second, DILUENT_ML, table["amount"][drug] * np.where(partial, 0.5, 1.0))
    return {
        "parent_field_ordinal": pick(("1.1", "1.2"), ordinal),
        "product_amount_given": number_text(amount),
        "product_unit": with_diluent(
            table["unit"].take(pa.array(drug)), pick(("mL",), np.zeros(len(drug), np.int64))
        ),
        "product_code": with_diluent(
            table["code"].take(pa.array(drug)), pick([c for _, c in DILUENTS], diluent)
        ),
        "product_description": with_diluent(
            table["description"].take(pa.array(drug)), pick([d for d, _ in DILUENTS], diluent)
        ),
    }
