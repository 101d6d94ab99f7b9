"""icu.chartevents volume: the nursing flowsheet, monitor and lab-copy items no concept reads.

Real chartevents holds about 55 rows per ICU hour across all items; the concept items
give about 24. The rest is bedside documentation, charted in rounds: every item of a
:class:`Flowsheet` is charted at the same times (one round), on its cadence, for the
stays it applies to (all stays, the ventilated hours, stays with an arterial line).

Each stay keeps a usual answer for each text item (charted 80 % of the time), so the
flowsheet reads like one patient's record rather than noise. Rows are built per item
with Arrow ``take`` on small option arrays: no Python loop runs over rows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from m4bench.sources.synth.core import QuirkRates
from m4bench.sources.synth.mimic_events import ChartRows, Timeline, timeline
from m4bench.sources.synth.mimic_latent import StayState

TextItem = tuple[int, tuple[str, ...]]
NumericItem = tuple[int, float, float, str, int]  # itemid, low, high, unit, decimals


@dataclass(frozen=True)
class Flowsheet:
    """Items charted together every ``every_h`` hours."""

    every_h: float
    text: tuple[TextItem, ...] = ()
    numeric: tuple[NumericItem, ...] = ()


LEVEL_OF_CONSCIOUSNESS = 226104
CONSCIOUSNESS_LEVELS = ("Alert", "Lethargic", "Arouse to Voice", "Arouse to Pain", "Unresponsive")
LUNG_SOUNDS = ("Clear", "Diminished", "Crackles", "Rhonchi", "Coarse", "Wheeze")

NURSING_HOURLY = Flowsheet(
    1.0,
    text=(
        (227969, ("Bed locked/low position", "Call light within reach", "Side rails x 2")),
        (LEVEL_OF_CONSCIOUSNESS, CONSCIOUSNESS_LEVELS),
        (223791, ("None", "Mild", "Moderate", "Severe", "Unable to Score")),
        (223986, LUNG_SOUNDS),
        (223987, LUNG_SOUNDS),
        (223988, LUNG_SOUNDS),
        (223989, LUNG_SOUNDS),
        (224028, ("Normal for ethnicity", "Pale", "Jaundiced", "Flushed", "Mottled")),
        (224027, ("Warm", "Cool", "Hot", "Cold")),
        (224026, ("Intact", "Impaired")),
    ),
    numeric=((226253, 85.0, 90.0, "%", 0),),
)
NURSING_TWO_HOURLY = Flowsheet(
    2.0,
    text=(
        (224082, ("Side to Side", "Self", "Refused")),
        (224409, ("Pain level acceptable", "Pain level not acceptable", "Sleeping")),
        (223792, ("Meds given", "Repositioned", "Declined", "None")),
    ),
)
NURSING_FOUR_HOURLY = Flowsheet(
    4.0,
    text=(
        (224084, ("Bed Rest", "Chair", "Dangle", "Ambulate")),
        (224086, ("Tolerated Well", "Fatigued", "Dyspneic")),
    ),
)
VENTILATOR_MONITOR = Flowsheet(
    1.0,
    numeric=(
        (224695, 15.0, 38.0, "cmH2O", 0),
        (224697, 6.0, 20.0, "cmH2O", 0),
        (224701, 5.0, 15.0, "cmH2O", 0),
        (224738, 0.8, 1.2, "sec", 2),
    ),
)
ARTERIAL_ALARMS = Flowsheet(
    1.0, numeric=((220056, 85.0, 95.0, "mmHg", 0), (220058, 150.0, 170.0, "mmHg", 0))
)
PULMONARY_ARTERY = Flowsheet(
    1.0,
    numeric=(
        (220059, 25.0, 50.0, "mmHg", 0),
        (220060, 10.0, 25.0, "mmHg", 0),
        (220061, 15.0, 35.0, "mmHg", 0),
    ),
)
LAB_COPIES = Flowsheet(
    8.0,
    numeric=(
        (220615, 0.5, 3.5, "mg/dL", 1),
        (220645, 132.0, 146.0, "mEq/L", 0),
        (227442, 3.2, 5.4, "mEq/L", 1),
        (220602, 96.0, 112.0, "mEq/L", 0),
        (227443, 18.0, 30.0, "mEq/L", 0),
        (225624, 8.0, 60.0, "mg/dL", 0),
        (220545, 24.0, 42.0, "%", 1),
        (220228, 7.5, 14.0, "g/dl", 1),
        (220546, 4.0, 18.0, "K/uL", 1),
        (227457, 60.0, 350.0, "K/uL", 0),
        (220635, 1.6, 2.6, "mg/dL", 1),
        (225677, 2.5, 5.0, "mg/dL", 1),
        (225625, 7.8, 9.8, "mg/dL", 1),
        (227073, 8.0, 18.0, "mEq/L", 0),
    ),
)
BLOOD_GAS_COPIES = Flowsheet(
    6.0,
    numeric=(
        (223830, 7.25, 7.50, "units", 2),
        (220224, 60.0, 180.0, "mmHg", 0),
        (220235, 30.0, 55.0, "mmHg", 0),
        (225698, 20.0, 30.0, "mEq/L", 0),
        (224828, -6.0, 4.0, "mEq/L", 0),
        (225668, 0.8, 4.0, "mmol/L", 1),
    ),
)

SHEETS = (
    NURSING_HOURLY,
    NURSING_TWO_HOURLY,
    NURSING_FOUR_HOURLY,
    VENTILATOR_MONITOR,
    ARTERIAL_ALARMS,
    PULMONARY_ARTERY,
    LAB_COPIES,
    BLOOD_GAS_COPIES,
)
FLOWSHEET_ITEMS = tuple(
    itemid
    for sheet in SHEETS
    for itemid in [i for i, _ in sheet.text] + [i for i, *_ in sheet.numeric]
)


def flowsheet(rng: np.random.Generator, s: StayState, rows: ChartRows, q: QuirkRates) -> np.ndarray:
    """Every flowsheet round of the chunk's stays; returns which stays have a PA catheter."""
    every = np.ones(len(s), bool)
    off = q.off_hour_time
    # the usual level of consciousness follows the stay's GCS impairment
    alertness = np.clip(np.round(s.gcs_loss / 3), 0, len(CONSCIOUSNESS_LEVELS) - 1)
    hourly = timeline(rng, s, every, 0.0, s.los_h, 1.0, off)
    chart_round(rng, s, rows, NURSING_HOURLY, hourly, {LEVEL_OF_CONSCIOUSNESS: alertness})
    for sheet, start in ((NURSING_TWO_HOURLY, 1.0), (NURSING_FOUR_HOURLY, 2.0)):
        tl = timeline(rng, s, every, start, s.los_h, sheet.every_h, off)
        chart_round(rng, s, rows, sheet, tl)
    vent = timeline(rng, s, s.vent, s.vent_on + 0.5, s.vent_off, 1.0, off)
    chart_round(rng, s, rows, VENTILATOR_MONITOR, vent)
    art = timeline(rng, s, s.art_line, 0.5, s.los_h - 1, 1.0, off)
    chart_round(rng, s, rows, ARTERIAL_ALARMS, art)
    pa_line = s.art_line & (rng.random(len(s)) < 0.15)
    pa_tl = timeline(rng, s, pa_line, 1.0, s.los_h, 1.0, off)
    chart_round(rng, s, rows, PULMONARY_ARTERY, pa_tl)
    labs = timeline(rng, s, every, 1.0, s.los_h, LAB_COPIES.every_h, off)
    chart_round(rng, s, rows, LAB_COPIES, labs)
    gases = timeline(rng, s, s.vent, s.vent_on + 1, s.vent_off, BLOOD_GAS_COPIES.every_h, off)
    chart_round(rng, s, rows, BLOOD_GAS_COPIES, gases)
    return pa_line


def chart_round(
    rng: np.random.Generator,
    s: StayState,
    rows: ChartRows,
    sheet: Flowsheet,
    tl: Timeline,
    usual_answer: dict[int, np.ndarray] | None = None,
) -> None:
    """Chart every item of ``sheet`` at each time of ``tl`` (one round).

    ``usual_answer`` gives, for some text items, each stay's usual option index;
    the others draw it at random.
    """
    n = len(tl)
    if n == 0:
        return
    for itemid, options in sheet.text:
        drawn = rng.integers(0, len(options), len(s))
        usual = (usual_answer or {}).get(itemid, drawn).astype(np.int64)[tl.stay]
        pick = np.where(rng.random(n) < 0.8, usual, rng.integers(0, len(options), n))
        rows.text_arrow(tl, itemid, pa.array(options, pa.string()).take(pa.array(pick)))
    for itemid, low, high, unit, decimals in sheet.numeric:
        level = rng.uniform(low, high, len(s))[tl.stay]
        spread = (high - low) * 0.08
        values = np.clip(level + rng.normal(0.0, spread, n), low - spread, high + spread)
        rows.numeric(tl, itemid, values, unit, decimals)
