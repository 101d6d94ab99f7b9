"""icu.chartevents: the bedside assessments that bring the table to its real volume.

Real chartevents holds about 4,600 rows per ICU stay. Besides the monitor, alarm-limit
and lab-copy rounds of ``mimic_flowsheet``, most of it is nursing assessment charted in
rounds: pain hourly, a neurological check, a respiratory and a cardiovascular
assessment every two hours, abdomen and urine every four hours, line sites every
four hours, fall risk every twelve. Stays with an arterial line also chart central
venous alarm limits; stays with a pulmonary artery catheter chart continuous cardiac
output and mixed venous saturation; ventilated stays chart ventilator alarm limits
hourly and airway care every four hours.

Every item id and label here was checked against public listings of MIMIC-IV d_items;
no concept reads these items. Rows are built per item with Arrow ``take`` on small
option arrays (see :func:`~m4bench.sources.synth.mimic_flowsheet.chart_round`).
"""

from __future__ import annotations

import numpy as np

from m4bench.sources.synth.core import QuirkRates
from m4bench.sources.synth.mimic_events import ChartRows, timeline
from m4bench.sources.synth.mimic_flowsheet import Flowsheet, chart_round
from m4bench.sources.synth.mimic_latent import StayState

PUPIL_SIZE = ("2 mm", "3 mm", "4 mm", "5 mm")
PUPIL_RESPONSE = ("Brisk", "Sluggish", "Non-reactive")
STRENGTH = ("Normal strength", "Moves against gravity", "Moves on bed", "No movement")
PULSE = ("Palpable", "Doppler", "Weak palpable", "Absent")
CAPILLARY_REFILL = ("Normal <3 secs", "Abnormal >3 secs")
CARE_DONE = ("Done", "Refused")
SITE = ("Clean, dry, intact", "Reddened", "Oozing")
YES_NO = ("Yes", "No")

PAIN_HOURLY = Flowsheet(
    1.0,
    text=(
        (223781, ("No", "Yes", "Unable to assess")),
        (223795, ("Numeric", "CPOT", "Faces")),
        (223794, YES_NO),
        (223783, ("Incision", "Chest", "Abdomen", "Back", "Generalized")),
        (223782, ("Aching", "Sharp", "Dull", "Burning")),
        (228305, YES_NO),  # ST Segment Monitoring On
    ),
)
NEURO_CHECK = Flowsheet(
    2.0,
    text=(
        (223907, PUPIL_SIZE),
        (224733, PUPIL_SIZE),
        (227121, PUPIL_RESPONSE),
        (227288, PUPIL_RESPONSE),
        (228412, STRENGTH),
        (228409, STRENGTH),
        (228411, STRENGTH),
        (228410, STRENGTH),
        (223898, ("Oriented x 3", "Oriented x 2", "Oriented x 1", "Disoriented")),
        (223902, ("Normal", "Slurred", "Garbled", "Intubated")),
        (223911, YES_NO),
        (223910, ("Consistently", "Inconsistently", "No")),
    ),
)
RESPIRATORY_ASSESSMENT = Flowsheet(
    2.0,
    text=(
        (223985, ("Normal", "Shallow", "Labored", "Irregular")),
        (223990, ("Normal", "Increased", "Labored")),
        (223991, ("Strong", "Weak", "None")),
        (223992, ("Non-productive", "Productive")),
        (224370, ("White", "Yellow", "Tan", "Green", "Blood tinged")),
        (224373, ("Scant", "Small", "Moderate", "Large")),
        (224369, ("Thin", "Thick", "Frothy")),
        (229323, ("None", "Mild", "Moderate", "Severe")),
    ),
)
CARDIOVASCULAR_ASSESSMENT = Flowsheet(
    2.0,
    text=(
        (223936, PULSE),
        (223948, PULSE),
        (223934, PULSE),
        (223943, PULSE),
        (223935, PULSE),
        (223947, PULSE),
        (223951, CAPILLARY_REFILL),
        (224308, CAPILLARY_REFILL),
        (224389, ("Normal S1/S2", "Distant", "Murmur", "S3")),
        (224031, ("None", "Bilateral lower extremities", "Generalized", "Hands")),
        (224862, ("None", "1+", "2+", "3+")),
    ),
)
GI_GU_ASSESSMENT = Flowsheet(
    4.0,
    text=(
        (224003, ("Soft", "Non-tender", "Distended", "Firm", "Tender")),
        (224004, ("Present", "Hypoactive", "Hyperactive", "Absent")),
        (224005, YES_NO),
        (224001, ("NPO", "Regular", "Clear liquids", "Tube feeding")),
        (224016, ("Yellow", "Amber", "Straw", "Pink")),
        (224876, ("Clear", "Cloudy", "Sediment")),
        (224015, ("Foley", "Voiding", "Condom catheter")),
        (225184, CARE_DONE),  # eye care
        (226168, CARE_DONE),  # oral care
        (225187, CARE_DONE),  # back care
        (225185, CARE_DONE),  # skin care
        (225188, CARE_DONE),  # cough / deep breath
    ),
)
PERIPHERAL_IV = Flowsheet(
    4.0,
    text=(
        (225231, SITE),  # 20 Gauge Site Appear
        (227368, YES_NO),  # 20 Gauge Dressing Occlusive
        (228013, ("0 - No symptoms", "1 - Erythema")),
        (228014, ("0 - No symptoms", "1 - Skin blanched")),
    ),
)
FALL_RISK = Flowsheet(
    12.0,
    text=(
        (227341, ("No = 0", "Yes = 25")),
        (227342, ("No = 0", "Yes = 15")),
        (227343, ("None/bedrest/wheelchair/nurse = 0", "Crutches/cane/walker = 15")),
        (227344, ("No = 0", "Yes = 20")),
        (227345, ("Normal/bedrest/immobile = 0", "Weak = 10", "Impaired = 20")),
        (227346, ("Oriented to own ability = 0", "Forgets limitations = 15")),
        (224088, ("Air mattress", "Heel protectors", "Pillows")),
    ),
)
DAILY = Flowsheet(24.0, text=((223758, ("Full code", "DNR / DNI", "Comfort measures only")),))
ARTERIAL_SITE = Flowsheet(
    4.0,
    text=(
        (224289, SITE),
        (224291, ("Good waveform", "Dampened")),
        (227292, YES_NO),
    ),
)
CVP_ALARMS = Flowsheet(
    1.0, numeric=((220072, 15.0, 20.0, "mmHg", 0), (220073, 0.0, 5.0, "mmHg", 0))
)
CENTRAL_LINE_SITE = Flowsheet(
    4.0,
    text=(
        (224281, SITE),
        (224283, ("Good waveform", "Dampened")),
        (227293, YES_NO),
    ),
)
PA_MONITOR = Flowsheet(
    1.0,
    numeric=(
        (224842, 3.5, 7.0, "L/min", 1),
        (226329, 36.0, 38.5, "°C", 1),
        (223772, 55.0, 80.0, "%", 0),
        (220063, 40.0, 60.0, "mmHg", 0),
        (220066, 5.0, 10.0, "mmHg", 0),
    ),
)
VENTILATOR_ALARMS = Flowsheet(
    1.0,
    numeric=(
        (223873, 35.0, 50.0, "cmH2O", 0),
        (223874, 800.0, 1200.0, "mL", 0),
        (223876, 15.0, 20.0, "sec", 0),
        (223875, 30.0, 45.0, "insp/min", 0),
        (220292, 2.0, 5.0, "L/min", 0),
        (220293, 15.0, 25.0, "L/min", 0),
    ),
)
AIRWAY_CARE = Flowsheet(
    4.0,
    text=((224391, ("Lip", "Teeth")),),
    numeric=(
        (224417, 20.0, 30.0, "cmH2O", 0),
        (224415, 21.0, 25.0, "cm", 0),
        (223872, 35.0, 39.0, "°C", 0),
    ),
)

ALL_STAYS = (
    (PAIN_HOURLY, 0.0),
    (NEURO_CHECK, 1.0),
    (RESPIRATORY_ASSESSMENT, 0.0),
    (CARDIOVASCULAR_ASSESSMENT, 1.0),
    (GI_GU_ASSESSMENT, 2.0),
    (FALL_RISK, 3.0),
    (DAILY, 4.0),
)
SHEETS = (
    *(sheet for sheet, _ in ALL_STAYS),
    PERIPHERAL_IV,
    ARTERIAL_SITE,
    CVP_ALARMS,
    CENTRAL_LINE_SITE,
    PA_MONITOR,
    VENTILATOR_ALARMS,
    AIRWAY_CARE,
)
BEDSIDE_ITEMS = tuple(
    itemid
    for sheet in SHEETS
    for itemid in [i for i, _ in sheet.text] + [i for i, *_ in sheet.numeric]
)


def bedside(
    rng: np.random.Generator, s: StayState, rows: ChartRows, q: QuirkRates, pa_line: np.ndarray
) -> None:
    """Every bedside assessment round of the chunk's stays (``pa_line``: stays with a PA
    catheter, as drawn by the flowsheet)."""
    off = q.off_hour_time
    every = np.ones(len(s), bool)
    for sheet, start in ALL_STAYS:
        chart_round(
            rng, s, rows, sheet, timeline(rng, s, every, start, s.los_h, sheet.every_h, off)
        )
    peripheral = rng.random(len(s)) < 0.9
    piv = timeline(rng, s, peripheral, 1.0, s.los_h, PERIPHERAL_IV.every_h, off)
    chart_round(rng, s, rows, PERIPHERAL_IV, piv)
    art_site = timeline(rng, s, s.art_line, 1.0, s.los_h - 1, ARTERIAL_SITE.every_h, off)
    chart_round(rng, s, rows, ARTERIAL_SITE, art_site)
    chart_round(rng, s, rows, CVP_ALARMS, timeline(rng, s, s.art_line, 0.5, s.los_h, 1.0, off))
    central = timeline(rng, s, s.pressor, s.pressor_on, s.los_h * 0.9, 4.0, off)
    chart_round(rng, s, rows, CENTRAL_LINE_SITE, central)
    chart_round(rng, s, rows, PA_MONITOR, timeline(rng, s, pa_line, 1.0, s.los_h, 1.0, off))
    vent = timeline(rng, s, s.vent, s.vent_on + 0.5, s.vent_off, 1.0, off)
    chart_round(rng, s, rows, VENTILATOR_ALARMS, vent)
    airway = timeline(rng, s, s.vent, s.vent_on + 1.0, s.vent_off, AIRWAY_CARE.every_h, off)
    chart_round(rng, s, rows, AIRWAY_CARE, airway)
