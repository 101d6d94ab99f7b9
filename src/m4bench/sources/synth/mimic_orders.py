"""hosp.poe and hosp.poe_detail: the orders providers enter during each admission.

Medication orders are the prescription lines themselves (same ``poe_id`` and
``poe_seq``, ordered shortly before the line starts); some are ended by a 'D/C' order at
the line's stop time. Every admission also gets its admit, transfer and discharge orders
('ADT orders'), a code-status order, and orders of every other type at a daily rate
(higher in the ICU), some of them later discontinued, changed or held by a follow-up
order that points back to them (``discontinue_of_poe_id`` / ``discontinued_by_poe_id``).
poe_seq is a running number in ordertime order within each admission.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa

from m4bench.sources.synth.core import group_arange, seconds_to_us
from m4bench.sources.synth.mimic_cohort import DAY, HOUR, Cohort
from m4bench.sources.synth.mimic_orders_vocab import (
    ADMIT_CATEGORY,
    ADMIT_TO,
    ADT_SUBTYPES,
    CODE_STATUS_ALIVE,
    CODE_STATUS_DYING,
    CONSULT_STATUS,
    DISCHARGE_PLANNING,
    DISCHARGE_WHEN,
    FOLLOW_UP_TRANSACTIONS,
    ICU_ONLY_ORDER_TYPES,
    LEVEL_OF_URGENCY,
    MEDICATION_ORDER_TYPE,
    ORDER_STATUSES,
    POE_ORDER_MIX,
    TELE,
    TRANSFER_TO,
)
from m4bench.sources.synth.text_columns import dash_ids, names, pick, vocab, weighted

Columns = dict[str, Any]
ORDERS_PER_DAY_WARD = 5.5
ORDERS_PER_DAY_ICU = 9.0
FOLLOW_UP_SHARE = 0.2  # of the orders other than ADT and code status
MEDICATION_DC_SHARE = 0.45  # of the prescription lines, ended by an explicit 'D/C' order
ACTIVE_SHARE = 0.25  # of the orders never followed up, still 'Active' at discharge
PROVIDERS = vocab([f"P{i:05X}" for i in range(200)])

# every (order_type, order_subtype) pair; the first four are placed per admission
_PAIRS: tuple[tuple[str, str | None], ...] = (
    *(("ADT orders", sub) for sub in ADT_SUBTYPES),
    ("General Care", "Code status"),
    *((kind, sub) for kind, _, subs in POE_ORDER_MIX for sub in subs),
    (MEDICATION_ORDER_TYPE, None),
)
PAIR_ADMIT, PAIR_TRANSFER, PAIR_DISCHARGE, PAIR_CODE_STATUS = range(4)
_FIRST_CARE_PAIR = 4
PAIR_MEDICATION = len(_PAIRS) - 1
_PAIR_TYPE = vocab([kind for kind, _ in _PAIRS])
_PAIR_SUBTYPE = pa.array([sub for _, sub in _PAIRS], type=pa.string())
_TRANSACTIONS = vocab(["New", *(name for name, _ in FOLLOW_UP_TRANSACTIONS)])


def _pair_index(kind: str, subtype: str | None = None) -> list[int]:
    return [i for i, (k, s) in enumerate(_PAIRS) if k == kind and subtype in (None, s)]


@dataclass
class _Orders:
    """Orders of one chunk before ids: admission (local index), time, pair, transaction."""

    adm: np.ndarray
    time: np.ndarray
    pair: np.ndarray
    transaction: np.ndarray  # 0 = 'New', else 1 + index into FOLLOW_UP_TRANSACTIONS
    follows: np.ndarray  # row this order discontinues, -1 if none

    @staticmethod
    def concat(parts: list[_Orders]) -> _Orders:
        fields = ("adm", "time", "pair", "transaction", "follows")
        return _Orders(*(np.concatenate([getattr(p, f) for p in parts]) for f in fields))


def _minutes(seconds: np.ndarray) -> np.ndarray:
    return (np.asarray(seconds) // 60 * 60).astype(np.int64)


def medication_orders(rng: np.random.Generator, rx: Columns, first_seq: int) -> Columns:
    """One 'Medications' order per prescription line, and 'D/C' orders ending some of them.

    The 'D/C' orders take poe_seq values from ``first_seq`` on.
    """
    n = len(rx["pharmacy_id"])
    subject = np.asarray(rx["subject_id"], dtype=np.int64)
    start = np.asarray(rx["starttime"]).astype("datetime64[s]").astype(np.int64)
    stop = np.asarray(rx["stoptime"]).astype("datetime64[s]").astype(np.int64)
    ended = np.flatnonzero(rng.random(n) < MEDICATION_DC_SHARE)
    k = len(ended)
    seq = np.concatenate([np.asarray(rx["poe_seq"], dtype=np.int64), first_seq + np.arange(k)])
    subject_all = np.concatenate([subject, subject[ended]])
    ids = dash_ids(subject_all, seq)
    by = np.full(n + k, -1)
    by[ended] = n + np.arange(k)
    of = np.full(n + k, -1)
    of[n:] = ended
    time = np.concatenate([_minutes(start - rng.integers(5, 61, n) * 60), _minutes(stop[ended])])
    transaction = np.concatenate([np.zeros(n, np.int64), np.ones(k, np.int64)])  # New, D/C
    return {
        "poe_id": ids,
        "poe_seq": seq,
        "subject_id": subject_all,
        "hadm_id": np.concatenate([rx["hadm_id"], np.asarray(rx["hadm_id"])[ended]]),
        "ordertime": seconds_to_us(time),
        "order_type": pick(_PAIR_TYPE, np.full(n + k, PAIR_MEDICATION)),
        "order_subtype": pa.nulls(n + k, pa.string()),
        "transaction_type": _TRANSACTIONS.take(pa.array(transaction)),
        "discontinue_of_poe_id": ids.take(pa.array(np.maximum(of, 0), mask=of < 0)),
        "discontinued_by_poe_id": ids.take(pa.array(np.maximum(by, 0), mask=by < 0)),
        "order_provider_id": pick(PROVIDERS, rng.integers(0, len(PROVIDERS), n + k)),
        "order_status": pick(ORDER_STATUSES, np.ones(n + k, np.int64)),
    }


def _fixed_orders(rng: np.random.Generator, admit: np.ndarray, disch: np.ndarray,
                  icu: np.ndarray, died: np.ndarray) -> _Orders:  # fmt: skip
    """Admit, transfer, discharge and code-status orders of each admission."""
    n = len(admit)
    transfers = np.where(icu, 2, rng.poisson(0.4, n))
    admits = np.arange(n)
    tr = np.repeat(np.arange(n), transfers)
    span = (disch - admit)[tr]
    tr_time = admit[tr] + (span * (group_arange(transfers) + rng.random(len(tr))) / 3).astype(int)
    discharged = np.flatnonzero(~died)
    adm = np.concatenate([admits, tr, discharged, admits])
    time = np.concatenate([
        admit - rng.integers(0, 3 * HOUR, n),
        tr_time,
        disch[discharged] - rng.integers(HOUR, 12 * HOUR, len(discharged)),
        admit + rng.integers(0, 6 * HOUR, n),
    ])  # fmt: skip
    pair = np.concatenate([
        np.full(n, PAIR_ADMIT), np.full(len(tr), PAIR_TRANSFER),
        np.full(len(discharged), PAIR_DISCHARGE), np.full(n, PAIR_CODE_STATUS),
    ])  # fmt: skip
    m = len(adm)
    return _Orders(adm, time, pair, np.zeros(m, np.int64), np.full(m, -1))


def _care_orders(rng: np.random.Generator, admit: np.ndarray, disch: np.ndarray,
                 icu: np.ndarray, vent: np.ndarray, fertile: np.ndarray) -> _Orders:  # fmt: skip
    """Orders of every other type, at a daily rate, uniform over the admission."""
    days = np.maximum(disch - admit, HOUR) / DAY
    count = rng.poisson(np.where(icu, ORDERS_PER_DAY_ICU, ORDERS_PER_DAY_WARD) * days + 2)
    adm = np.repeat(np.arange(len(admit)), count)
    m = len(adm)
    kind = weighted(rng, [(k, s) for k, s, _ in POE_ORDER_MIX], m)
    kinds = [k for k, _, _ in POE_ORDER_MIX]
    general = kinds.index("General Care")
    ward_only = ~icu[adm] & np.isin(kind, [kinds.index(k) for k in ICU_ONLY_ORDER_TYPES])
    kind[ward_only] = general
    kind[(kind == kinds.index("OB")) & ~fertile[adm]] = kinds.index("Lab")
    kind[vent[adm] & (kind == general) & (rng.random(m) < 0.3)] = kinds.index("Respiratory")
    n_sub = np.array([len(subs) for _, _, subs in POE_ORDER_MIX])
    first_pair = _FIRST_CARE_PAIR + np.cumsum(n_sub) - n_sub
    pair = first_pair[kind] + (rng.random(m) * n_sub[kind]).astype(np.int64)
    time = admit[adm] + (rng.random(m) * (disch - admit)[adm]).astype(np.int64)
    return _Orders(adm, time, pair, np.zeros(m, np.int64), np.full(m, -1))


def _follow_ups(rng: np.random.Generator, care: _Orders, offset: int, disch: np.ndarray) -> _Orders:
    """Orders ending some care orders (rows ``offset`` + i of the chunk) before discharge."""
    chosen = np.flatnonzero(rng.random(len(care.adm)) < FOLLOW_UP_SHARE)
    adm = care.adm[chosen]
    left = np.maximum(disch[adm] - care.time[chosen], 60)
    time = care.time[chosen] + 60 + (rng.random(len(chosen)) * left).astype(np.int64)
    transaction = 1 + weighted(rng, FOLLOW_UP_TRANSACTIONS, len(chosen))
    return _Orders(adm, time, care.pair[chosen], transaction, offset + chosen)


def admission_orders(
    rng: np.random.Generator, cohort: Cohort, rows: np.ndarray, vent: np.ndarray, first_seq: int
) -> tuple[Columns, Columns]:
    """(poe, poe_detail) of the admissions ``rows`` (indices into the cohort's admissions).

    ``vent`` marks the admissions with invasive ventilation; poe_seq runs from ``first_seq``.
    """
    a, p = cohort.admissions, cohort.patients
    admit, disch = a.admittime[rows], a.dischtime[rows]
    died = a.deathtime[rows] >= 0
    subj = a.subj[rows]
    fertile = p.female[subj] & (p.anchor_age[subj] < 50)
    fixed = _fixed_orders(rng, admit, disch, a.is_icu[rows], died)
    care = _care_orders(rng, admit, disch, a.is_icu[rows], vent, fertile)
    follow = _follow_ups(rng, care, len(fixed.adm), disch)
    orders = _Orders.concat([fixed, care, follow])
    order = np.lexsort((orders.pair, orders.time, orders.adm))
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    seq = first_seq + np.arange(len(order))
    subject = p.subject_id[subj][orders.adm[order]]
    ids = dash_ids(subject, seq)
    follows = orders.follows[order]
    of = np.where(follows >= 0, rank[np.maximum(follows, 0)], -1)
    by = np.full(len(order), -1)
    by[of[of >= 0]] = np.flatnonzero(of >= 0)
    poe = _poe_columns(rng, orders, order, ids, seq, subject, a.hadm_id[rows], of, by)
    detail = _details(rng, orders, order, ids, seq, subject, died)
    return poe, detail


def _poe_columns(rng: np.random.Generator, orders: _Orders, order: np.ndarray, ids: pa.Array,
                 seq: np.ndarray, subject: np.ndarray, hadm: np.ndarray, of: np.ndarray,
                 by: np.ndarray) -> Columns:  # fmt: skip
    m = len(order)
    pair = orders.pair[order]
    still_active = (by < 0) & (of < 0) & (rng.random(m) < ACTIVE_SHARE)
    return {
        "poe_id": ids,
        "poe_seq": seq,
        "subject_id": subject,
        "hadm_id": hadm[orders.adm[order]],
        "ordertime": seconds_to_us(_minutes(orders.time[order])),
        "order_type": _PAIR_TYPE.take(pa.array(pair)),
        "order_subtype": _PAIR_SUBTYPE.take(pa.array(pair)),
        "transaction_type": _TRANSACTIONS.take(pa.array(orders.transaction[order])),
        "discontinue_of_poe_id": ids.take(pa.array(np.maximum(of, 0), mask=of < 0)),
        "discontinued_by_poe_id": ids.take(pa.array(np.maximum(by, 0), mask=by < 0)),
        "order_provider_id": pick(PROVIDERS, rng.integers(0, len(PROVIDERS), m)),
        "order_status": pick(ORDER_STATUSES, np.where(still_active, 0, 1)),
    }


def _details(rng: np.random.Generator, orders: _Orders, order: np.ndarray, ids: pa.Array,
             seq: np.ndarray, subject: np.ndarray, died: np.ndarray) -> Columns:  # fmt: skip
    """poe_detail rows: the fields of admit, transfer, discharge, code-status, consult,
    radiology and telemetry orders (new orders only)."""
    pair = orders.pair[order]
    new = orders.transaction[order] == 0
    dying = died[orders.adm[order]]
    parts: list[tuple[np.ndarray, str, pa.Array]] = []

    def add(rows: np.ndarray, field: str, values: pa.Array | tuple[str, ...]) -> None:
        if isinstance(values, tuple):
            values = pick(values, rng.integers(0, len(values), len(rows)))
        parts.append((rows, field, values))

    admits = np.flatnonzero(new & (pair == PAIR_ADMIT))
    add(admits, "Admit to", ADMIT_TO)
    add(admits, "Admit category", ADMIT_CATEGORY)
    add(np.flatnonzero(new & (pair == PAIR_TRANSFER)), "Transfer to", TRANSFER_TO)
    discharges = np.flatnonzero(new & (pair == PAIR_DISCHARGE))
    add(discharges, "Discharge Planning", DISCHARGE_PLANNING)
    add(discharges, "Discharge When", DISCHARGE_WHEN)
    code = np.flatnonzero(new & (pair == PAIR_CODE_STATUS))
    alive = weighted(rng, CODE_STATUS_ALIVE, len(code))
    dying_pick = weighted(rng, CODE_STATUS_DYING, len(code))
    status = names(CODE_STATUS_ALIVE + CODE_STATUS_DYING)
    add(code, "Code status", status.take(pa.array(
        np.where(dying[code], len(CODE_STATUS_ALIVE) + dying_pick, alive)
    )))  # fmt: skip
    add(
        np.flatnonzero(new & np.isin(pair, _pair_index("Consults"))),
        "Consult Status",
        CONSULT_STATUS,
    )
    radiology = np.flatnonzero(new & np.isin(pair, _pair_index("Radiology")))
    add(radiology, "Level of Urgency", names(LEVEL_OF_URGENCY).take(
        pa.array(weighted(rng, LEVEL_OF_URGENCY, len(radiology)))
    ))  # fmt: skip
    add(np.flatnonzero(new & np.isin(pair, _pair_index("Cardiology", "Telemetry"))), "Tele", TELE)
    rows = np.concatenate([r for r, _, _ in parts])
    return {
        "poe_id": ids.take(pa.array(rows)),
        "poe_seq": seq[rows],
        "subject_id": subject[rows],
        "field_name": pick(
            [f for _, f, _ in parts],
            np.repeat(np.arange(len(parts)), [len(r) for r, _, _ in parts]),
        ),
        "field_value": pa.concat_arrays([v for _, _, v in parts]),
    }
