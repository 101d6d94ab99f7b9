"""icu.datetimeevents: the dates nurses chart, at the real volume (about 106 rows per stay).

Most real datetimeevents rows belong to access lines: at every line check the nurse
charts the line's insertion date and the dates of its last dressing, tubing and cap
change. Here every access line of the chunk's procedureevents (arterial, central,
PICC, dialysis and the rarer invasive lines) is checked every :data:`CHECK_H` hours
from its insertion to its removal or the end of the stay; dressings are changed every
two or seven days, tubing every four days and caps every three, counted from the
insertion. A peripheral IV is charted the same way (its insertion date only), and each
stay gets the date of admission to hospital, and the date of the last dialysis where
the patient is on intermittent or peritoneal dialysis. ``value`` is a date (midnight)
at or before ``charttime``; ``valueuom`` is 'Date'.

Every item id and label was checked against public listings of MIMIC-IV d_items.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from m4bench.sources.synth.core import group_arange, seconds_to_us
from m4bench.sources.synth.mimic_cohort import DAY, HOUR
from m4bench.sources.synth.mimic_latent import StayState

Columns = dict[str, Any]
CHECK_H = 2.5  # hours between two line checks
# procedureevents line item -> (insertion date, dressing change, tubing change, cap change)
LINE_DATES: dict[int, tuple[int, int, int, int | None]] = {
    225752: (224288, 224287, 224290, 224284),  # Arterial Line
    224263: (224280, 224279, 224282, 224261),  # Multi Lumen
    224264: (224184, 224186, 224187, 224183),  # PICC Line
    224270: (225322, 225321, 225324, 225318),  # Dialysis Catheter
    224267: (224296, 224295, 224298, 224292),  # Cordis/Introducer
    224560: (225354, 225353, 225356, 225351),  # PA Catheter
    224269: (225316, 225224, 225226, 225221),  # CCO PAC
    224268: (225317, 225216, 225218, 225213),  # Trauma line
    227719: (227724, 227722, 227729, 227720),  # AVA
    225315: (225330, 225329, 225332, 225327),  # Tunneled (Hickman) Line
    224273: (225386, 225385, 225390, 225383),  # Presep Catheter
    225203: (225370, 225369, 225372, 225367),  # Pheresis Catheter
    225199: (225394, 225393, 225396, 225391),  # Triple Introducer
    224272: (225338, 225337, 225340, None),  # IABP line
    228169: (228168, 228166, 228165, None),  # Impella Line
    225202: (225378, 227361, 225380, 225375),  # Indwelling Port (PortaCath)
}
PERIPHERAL_INSERTION = 225755  # 18 Gauge Insertion Date
PERIPHERAL_SHARE = 0.8  # of the stays, with a peripheral IV in place the whole stay
ADMISSION_DATE = 225279  # Date of Admission to Hospital
LAST_DIALYSIS = 225128  # Last dialysis
# days between two changes: dressing (gauze 2, transparent 7), tubing, cap
DRESSING_DAYS = (2.0, 7.0)
TUBING_DAYS = 4.0
CAP_DAYS = 3.0
DATE_ITEMS = tuple(
    sorted(
        {i for dates in LINE_DATES.values() for i in dates if i is not None}
        | {PERIPHERAL_INSERTION, ADMISSION_DATE, LAST_DIALYSIS}
    )
)


def _stay_index(ids: dict[str, np.ndarray], stay_id: np.ndarray) -> np.ndarray:
    order = np.argsort(ids["stay_id"], kind="stable")
    out: np.ndarray = order[np.searchsorted(ids["stay_id"][order], stay_id)]
    return out


def _lines(
    procedures: Columns, ids: dict[str, np.ndarray]
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(stay index, line item, inserted, removed; epoch seconds) of the chunk's lines."""
    item = np.asarray(procedures["itemid"])
    keep = np.isin(item, list(LINE_DATES))
    start = np.asarray(procedures["starttime"])[keep].astype("datetime64[s]").astype(np.int64)
    end = np.asarray(procedures["endtime"])[keep].astype("datetime64[s]").astype(np.int64)
    stay = _stay_index(ids, np.asarray(procedures["stay_id"])[keep])
    return stay, item[keep], start, end


def _checks(
    rng: np.random.Generator, s: StayState, stay: np.ndarray, start: np.ndarray, end: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(line row, check time) of checks every CHECK_H hours while each line is in, within
    the stay; the first check within an hour of the insertion or of intime."""
    first = np.maximum(start, s.intime[stay]) + rng.integers(5, 60, len(stay)) * 60
    last = np.minimum(end, s.outtime[stay] - 60)
    counts = np.where(last >= first, (last - first) // int(CHECK_H * HOUR) + 1, 0)
    line = np.repeat(np.arange(len(stay)), counts)
    time = first[line] + group_arange(counts) * int(CHECK_H * HOUR)
    time += rng.integers(-20, 21, len(time)) * 60
    return line, np.clip(time, first[line], last[line])


def _last_change(inserted: np.ndarray, time: np.ndarray, days: np.ndarray) -> np.ndarray:
    """Midnight of the last change, every ``days`` days since insertion, before ``time``."""
    period = (days * DAY).astype(np.int64)
    changed = inserted + (np.maximum(time - inserted, 0) // period) * period
    out: np.ndarray = changed // DAY * DAY
    return out


def _line_rows(
    rng: np.random.Generator, s: StayState, procedures: Columns, ids: dict[str, np.ndarray]
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(stay, charttime, itemid, value) of the date rows of every line check."""
    stay, item, start, end = _lines(procedures, ids)
    dressing = np.array(DRESSING_DAYS)[(rng.random(len(stay)) < 0.7).astype(int)]
    line, time = _checks(rng, s, stay, start, end)
    families = np.array([[i or 0 for i in LINE_DATES[int(k)]] for k in item], dtype=np.int64)
    families = families.reshape(len(item), 4)
    values = (
        start[line] // DAY * DAY,
        _last_change(start[line], time, dressing[line]),
        _last_change(start[line], time, np.full(len(line), TUBING_DAYS)),
        _last_change(start[line], time, np.full(len(line), CAP_DAYS)),
    )
    parts = [
        (np.flatnonzero(families[line, k] > 0), families[line, k], values[k]) for k in range(4)
    ]
    return (
        np.concatenate([stay[line[rows]] for rows, _, _ in parts]),
        np.concatenate([time[rows] for rows, _, _ in parts]),
        np.concatenate([items[rows] for rows, items, _ in parts]),
        np.concatenate([value[rows] for rows, _, value in parts]),
    )


def _stay_rows(
    rng: np.random.Generator, s: StayState, admit: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(stay, charttime, itemid, value) of the peripheral IV, admission and dialysis dates."""
    n = len(s)
    peripheral = np.flatnonzero(rng.random(n) < PERIPHERAL_SHARE)
    placed = s.intime[peripheral] - rng.integers(0, 2 * DAY // 60, len(peripheral)) * 60
    far = s.intime[peripheral] + DAY * 365
    line, time = _checks(rng, s, peripheral, placed, far)
    every = np.arange(n)
    opened = s.intime + rng.integers(20, 120, n) * 60
    dialysed = np.flatnonzero(s.ihd | s.peritoneal)
    last_session = s.intime[dialysed] - rng.integers(1, 4, len(dialysed)) * DAY
    return (
        np.concatenate([peripheral[line], every, dialysed]),
        np.concatenate([time, opened, opened[dialysed]]),
        np.concatenate(
            [
                np.full(len(line), PERIPHERAL_INSERTION),
                np.full(n, ADMISSION_DATE),
                np.full(len(dialysed), LAST_DIALYSIS),
            ]
        ),
        np.concatenate([placed[line] // DAY * DAY, admit // DAY * DAY, last_session // DAY * DAY]),
    )


def datetimeevents_chunk(
    rng: np.random.Generator,
    s: StayState,
    ids: dict[str, np.ndarray],
    procedures: Columns,
    admit: np.ndarray,
) -> Columns:
    """The datetimeevents columns of a chunk of stays, given the chunk's procedureevents
    columns (the lines) and each stay's hospital admission time (epoch seconds)."""
    parts = [_line_rows(rng, s, procedures, ids), _stay_rows(rng, s, admit)]
    stay, time, item, value = (np.concatenate([p[k] for p in parts]) for k in range(4))
    time = np.minimum(time, s.outtime[stay] - 60)
    value = np.minimum(value, time // DAY * DAY)
    order = np.lexsort((item, time, stay))
    stay, time, item, value = stay[order], time[order], item[order], value[order]
    m = len(stay)
    return {
        "subject_id": ids["subject_id"][stay],
        "hadm_id": ids["hadm_id"][stay],
        "stay_id": ids["stay_id"][stay],
        "caregiver_id": rng.integers(10_000, 10_500, m),
        "charttime": seconds_to_us(time),
        "storetime": seconds_to_us(time + rng.integers(0, 30, m) * 60),
        "itemid": item,
        "value": seconds_to_us(value),
        "valueuom": np.full(m, "Date", dtype=object),
        "warning": np.zeros(m, dtype=np.int16),
    }
