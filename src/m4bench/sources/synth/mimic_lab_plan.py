"""When labs are drawn for ICU stays and ward admissions, and what the panels hold."""

from __future__ import annotations

import numpy as np

from m4bench.sources.synth.core import QuirkRates
from m4bench.sources.synth.coverage_needs import Need
from m4bench.sources.synth.mimic_cohort import HOUR
from m4bench.sources.synth.mimic_events import Timeline, events_at, timeline
from m4bench.sources.synth.mimic_lab_routine import (
    AdmissionWindows,
    Draws,
    daily_times,
    extra_items,
    outpatient_times,
    routine_panels,
)
from m4bench.sources.synth.mimic_labs import LabRows, creatinine_course, panel_values
from m4bench.sources.synth.mimic_latent import StayState
from m4bench.sources.synth.mimic_resp import fio2_values
from m4bench.sources.synth.mimic_vocab import BG_SPECIMENS_OTHER

NAN = np.nan
# the items of each panel a coverage need may band, by signal
CHEM_SIGNALS = {"sodium": 50983, "potassium": 50971, "bicarbonate": 50882, "glucose": 50931,
                "bun": 51006}  # fmt: skip
CBC_SIGNALS = {"hematocrit": 51221, "wbc": 51301, "platelets": 51265}
GAS_SIGNALS = {"ph": 50820, "pco2": 50818, "glucose": 50809, "sodium": 50824,
               "potassium": 50822, "hematocrit": 50810}  # fmt: skip
GAS_NEEDS = ("ph", "pco2", "po2", "aado2")
ICU_DRAW_HOURS = 12.0  # chemistry and blood count in the ICU
WARD_DAYS_BEFORE_H = -(7 * 24 + 12)  # ward draws of ICU admissions end before the look-backs


def _null_hadm(
    rng: np.random.Generator, tl: Timeline, admit: np.ndarray, disch: np.ndarray, q: QuirkRates
) -> np.ndarray:
    outside = (tl.time < admit[tl.stay]) | (tl.time > disch[tl.stay])
    null: np.ndarray = outside | (rng.random(len(tl)) < q.lab_null_hadm)
    return null


def icu_labs(
    rng: np.random.Generator,
    s: StayState,
    admit: np.ndarray,
    disch: np.ndarray,
    rows: LabRows,
    q: QuirkRates,
    hadm: np.ndarray | None = None,
) -> None:
    """Panels of the ICU stays of a chunk, from a week before intime to outtime.

    With ``hadm`` (each stay's admission), the first stay of each admission also gets
    the routine draws of the admission's days outside the ICU.
    """
    n = len(s)
    first = -rng.uniform(0.2, 5.5, n)
    draws = timeline(rng, s, np.ones(n, bool), first, s.los_h, ICU_DRAW_HOURS, 1.0)
    before = rng.random(n) < 0.45
    pre = timeline(rng, s, before, -rng.uniform(30, 160, n), -8.0, 24.0, 1.0)
    for tl in (pre, draws):
        _chem_cbc(rng, s, tl, admit, disch, rows, q)
    daily = timeline(rng, s, np.ones(n, bool), first + 0.01, s.los_h, 24.0, 1.0)
    _daily_panels(rng, s, daily, _null_hadm(rng, daily, admit, disch, q), rows)
    _blood_gases(rng, s, admit, disch, rows, q)
    if hadm is not None:
        _ward_days(rng, s, hadm, admit, disch, rows, q)
    extra_items(rng, rows, q)  # after every draw above, so their values stay as they were


def _ward_days(
    rng: np.random.Generator,
    s: StayState,
    hadm: np.ndarray,
    admit: np.ndarray,
    disch: np.ndarray,
    rows: LabRows,
    q: QuirkRates,
) -> None:
    """Routine draws of an ICU admission's ward days (first stays of each admission).

    After outtime, and before intime only outside the week the creatinine look-backs and
    first-day windows of the ICU concepts cover, so their values do not change.
    """
    whole = np.zeros(len(s), dtype=bool)
    whole[np.unique(hadm, return_index=True)[1]] = True
    admit_h, disch_h = (admit - s.intime) / HOUR, (disch - s.intime) / HOUR
    none = np.full(len(s), -1.0)
    before = daily_times(rng, s.intime, admit_h + 0.5, np.where(whole, WARD_DAYS_BEFORE_H, admit_h))
    after = daily_times(rng, s.intime, s.los_h + 12, np.where(whole, disch_h, none))
    for tl in (before, after):
        sev = 0.5 * s.severity_at(tl.stay, np.clip(tl.hours, 0, s.los_h[tl.stay]))
        cr = creatinine_course(
            s.cr_base[tl.stay], s.aki_stage[tl.stay], s.aki_peak_h[tl.stay], tl.hours
        ) * rng.normal(1, 0.04, len(tl))
        hct = s.hct_base[tl.stay]
        routine_panels(rng, Draws(tl, cr, sev, hct, _null_hadm(rng, tl, admit, disch, q)), rows, q)


def _chem_cbc(
    rng: np.random.Generator,
    s: StayState,
    tl: Timeline,
    admit: np.ndarray,
    disch: np.ndarray,
    rows: LabRows,
    q: QuirkRates,
) -> None:
    sev = s.severity_at(tl.stay, np.maximum(tl.hours, 0))
    cr = creatinine_course(
        s.cr_base[tl.stay], s.aki_stage[tl.stay], s.aki_peak_h[tl.stay], tl.hours
    )
    cr = s.targets.shape("creatinine", tl.stay, tl.hours, cr * rng.normal(1, 0.04, len(tl)))
    platelets = s.platelet_base[tl.stay] * (1 - 0.15 * sev)
    infected = s.infection[tl.stay] & (tl.hours > s.infection_h[tl.stay] - 12)
    chem, cbc = panel_values(rng, sev, cr, platelets, infected, s.hct_base[tl.stay])
    shape_items(s, tl, chem, CHEM_SIGNALS)
    shape_items(s, tl, cbc, CBC_SIGNALS)
    chem[50868] = np.round(chem[50983] - chem[50902] - chem[50882])
    cbc[51222], cbc[51279] = cbc[51221] / 3.0, cbc[51221] / 9.5
    null_hadm = _null_hadm(rng, tl, admit, disch, q)
    rows.panel(rng, tl, chem, null_hadm, q)
    rows.panel(rng, tl, cbc, null_hadm, q)


def shape_items(
    s: StayState, tl: Timeline, items: dict[int, np.ndarray], signals: dict[str, int]
) -> None:
    """Map the banded items of engineered stays onto their bands (in place)."""
    for signal, itemid in signals.items():
        items[itemid] = s.targets.shape(signal, tl.stay, tl.hours, items[itemid])


def _daily_panels(
    rng: np.random.Generator, s: StayState, tl: Timeline, null_hadm: np.ndarray, rows: LabRows
) -> None:
    n = len(tl)
    sev = s.severity_at(tl.stay, np.maximum(tl.hours, 0))
    liver = s.liver[tl.stay]
    inr = np.clip(
        1.05 + 0.25 * (liver - 1) * rng.uniform(0.5, 1.5, n) + 0.8 * sev * rng.random(n), 0.8, 9
    )
    inr = s.targets.shape("inr", tl.stay, tl.hours, inr)
    rows.panel(
        rng,
        tl,
        {51237: inr, 51274: inr * rng.uniform(11, 12.5, n), 51275: rng.normal(32, 6, n)},
        null_hadm,
        QuirkRates(),
    )
    lft = (rng.random(n) < 0.6) | s.targets.window(tl.stay, tl.hours, _liver_need)
    bili = np.clip(rng.lognormal(np.log(0.6), 0.4, n) * liver * (1 + sev), 0.1, 45)
    liver_tl = tl.take(lft)
    rows.panel(
        rng,
        liver_tl,
        {
            50885: s.targets.shape("bilirubin", liver_tl.stay, liver_tl.hours, bili[lft]),
            50861: rng.lognormal(np.log(30), 0.7, int(lft.sum())) * (1 + 3 * sev[lft]),
            50878: rng.lognormal(np.log(35), 0.7, int(lft.sum())) * (1 + 3 * sev[lft]),
            50863: rng.lognormal(np.log(90), 0.4, int(lft.sum())),
            50862: s.targets.shape(
                "albumin",
                liver_tl.stay,
                liver_tl.hours,
                np.clip(rng.normal(3.4 - 1.3 * sev[lft], 0.4), 1.0, 5.2),
            ),
        },
        null_hadm[lft],
        QuirkRates(),
    )
    septic = s.infection[tl.stay] & (sev > 0.35) & (rng.random(n) < 0.5)
    bands = np.where(septic, rng.uniform(6, 30, n), rng.uniform(0, 5, n))
    bands = s.targets.shape("bands", tl.stay, tl.hours, bands)
    banded = s.targets.window(tl.stay, tl.hours, lambda need: "bands" in need.values)
    diff = (rng.random(n) < 0.7) | banded
    neut = rng.uniform(55, 88, n)
    rows.panel(
        rng,
        tl.take(diff),
        {
            51144: np.round(bands[diff]),
            51256: neut[diff],
            51244: (95 - neut[diff]) * 0.7,
            51254: rng.uniform(2, 10, int(diff.sum())),
            51200: rng.uniform(0, 4, int(diff.sum())),
            51146: rng.uniform(0, 1.2, int(diff.sum())),
        },
        null_hadm[diff],
        QuirkRates(),
    )
    _markers(rng, s, tl, sev, null_hadm, rows)


def _liver_need(need: Need) -> bool:
    return "bilirubin" in need.values or "albumin" in need.values


def _gas_need(need: Need) -> bool:
    return any(signal in need.values for signal in GAS_NEEDS)


def _markers(
    rng: np.random.Generator,
    s: StayState,
    tl: Timeline,
    sev: np.ndarray,
    null_hadm: np.ndarray,
    rows: LabRows,
) -> None:
    """Cardiac markers and CRP on some daily draws."""
    n = len(tl)
    cardiac = rng.random(n) < np.where(s.cvicu[tl.stay], 0.6, 0.2)
    m = int(cardiac.sum())
    rows.panel(
        rng,
        tl.take(cardiac),
        {
            51003: rng.lognormal(np.log(0.05), 1.2, m) * (1 + 3 * sev[cardiac]),
            50911: rng.lognormal(np.log(4), 0.8, m),
            50963: rng.lognormal(np.log(900), 1.0, m),
        },
        null_hadm[cardiac],
        QuirkRates(),
    )
    crp = rng.random(n) < 0.15
    inflamed = s.infection[tl.stay][crp]
    rows.panel(
        rng,
        tl.take(crp),
        {50889: rng.lognormal(np.log(20), 0.8, int(crp.sum())) * (1 + 5 * inflamed)},
        null_hadm[crp],
        QuirkRates(),
    )


def _blood_gases(
    rng: np.random.Generator,
    s: StayState,
    admit: np.ndarray,
    disch: np.ndarray,
    rows: LabRows,
    q: QuirkRates,
) -> None:
    n = len(s)
    vented = timeline(rng, s, s.vent, s.vent_on, s.vent_off, 6.0, 1.0)
    # engineered stays off the ventilator with banded gases get three in their first day
    banded = s.targets.flag(n, _gas_need) & ~s.vent
    others = events_at(
        rng,
        s.intime,
        np.where(s.vent, 0, (rng.random(n) < 0.35) * rng.integers(1, 4, n)) + 3 * banded,
        np.where(banded, 1.0, -4.0),
        np.where(banded, 23.0, np.maximum(s.los_h, 1.0)),
    )
    for tl, on_vent in ((vented, True), (others, False)):
        if len(tl) == 0:
            continue
        m = len(tl)
        sev = s.severity_at(tl.stay, np.maximum(tl.hours, 0))
        arterial = rng.random(m) < (0.85 if on_vent else 0.55)
        arterial |= s.targets.window(tl.stay, tl.hours, _gas_need)
        no_type = rng.random(m) < 0.08
        no_type &= ~s.targets.window(tl.stay, tl.hours, _gas_need)
        fio2 = np.where(
            on_vent, np.clip(30 + 60 * sev + rng.normal(0, 8, m), 21, 100), rng.uniform(21, 50, m)
        )
        fio2 = s.targets.shape("fio2", tl.stay, tl.hours, fio2)
        pf = np.clip(rng.normal(450 - 340 * sev, 50), 50, 550)
        po2 = np.where(arterial, pf * fio2 / 100, rng.uniform(25, 50, m))
        po2 = s.targets.shape("po2", tl.stay, tl.hours, po2)
        null_hadm = _null_hadm(rng, tl, admit, disch, q)
        spec = rows.panel(
            rng, tl, _gas_items(rng, s, tl, sev, fio2, po2, arterial, on_vent, q), null_hadm, q
        )
        kind = np.where(
            arterial, "ART.", np.array(BG_SPECIMENS_OTHER, dtype=object)[rng.integers(0, 3, m)]
        )
        typed = ~no_type
        rows.text_item(tl.take(typed), spec[typed], null_hadm[typed], 52033, kind[typed])
        pair = arterial & (rng.random(m) < q.bg_simultaneous_venous)
        pair &= ~s.targets.window(tl.stay, tl.hours, _gas_need)  # banded gases stand alone
        if pair.any():
            _venous_pairs(rng, tl.take(pair), null_hadm[pair], rows, q)


def _venous_pairs(
    rng: np.random.Generator, ven: Timeline, null_hadm: np.ndarray, rows: LabRows, q: QuirkRates
) -> None:
    """A venous gas at the time of each of these arterial gases (a quirk of real data)."""
    items = {
        50821: rng.uniform(25, 50, len(ven)),
        50818: rng.normal(46, 6, len(ven)),
        50820: rng.normal(7.35, 0.05, len(ven)),
    }
    vspec = rows.panel(rng, ven, items, null_hadm, q)
    rows.text_item(ven, vspec, null_hadm, 52033, np.full(len(ven), "VEN.", dtype=object))


def _gas_items(
    rng: np.random.Generator,
    s: StayState,
    tl: Timeline,
    sev: np.ndarray,
    fio2: np.ndarray,
    po2: np.ndarray,
    arterial: np.ndarray,
    on_vent: bool,
    q: QuirkRates,
) -> dict[int, np.ndarray]:
    m = len(tl)
    shock = s.pressor[tl.stay] & (tl.hours >= s.pressor_on[tl.stay] - 2)

    def some(share: float, values: np.ndarray) -> np.ndarray:
        return np.where(rng.random(m) < share, values, NAN)

    oxygen = np.where(rng.random(m) < (0.6 if on_vent else 0.15), fio2_values(rng, fio2, q), NAN)
    aado2 = fio2 / 100 * 713 - rng.normal(40, 6, m) / 0.8 - po2
    aado2 = s.targets.shape("aado2", tl.stay, tl.hours, aado2)
    gradient = s.targets.window(tl.stay, tl.hours, lambda need: "aado2" in need.values)
    items = {
        50821: po2,
        50818: np.clip(rng.normal(40 + 8 * sev, 7), 15, 110),
        50820: np.clip(rng.normal(7.41 - 0.16 * sev, 0.05), 6.8, 7.7),
        50802: np.round(rng.normal(-6 * sev, 3)),
        50804: np.clip(rng.normal(25 - 7 * sev, 3), 5, 45),
        50813: some(
            0.7, np.clip(rng.lognormal(np.log(1.3), 0.4, m) * (1 + 4 * shock * sev), 0.3, 20)
        ),
        50816: oxygen,
        50801: np.where(
            on_vent & (fio2 >= 50) & arterial & ((rng.random(m) < 0.6) | gradient),
            np.clip(aado2, 20, 650),
            NAN,
        ),
        50817: some(0.3, np.clip(rng.normal(95, 3, m), 60, 100)),
        50809: some(0.2, rng.lognormal(np.log(135), 0.3, m)),
        50822: some(0.2, rng.normal(4.1, 0.5, m)),
        50824: some(0.1, rng.normal(138, 4, m)),
        50808: some(0.2, rng.normal(1.12, 0.08, m)),
        50810: some(0.1, rng.normal(31, 5, m)),
        50811: some(0.1, rng.normal(10.3, 1.6, m)),
        50803: some(0.05, rng.normal(24, 4, m)),
        50806: some(0.05, rng.normal(104, 4, m)),
        50805: some(0.03, rng.uniform(0.5, 4, m)),
        50814: some(0.03, rng.uniform(0.2, 1.5, m)),
        50825: some(0.03, rng.normal(37, 0.6, m)),
        50815: some(0.03 if on_vent else 0.2, rng.uniform(2, 12, m)),
        50819: some(0.3 if on_vent else 0.0, np.round(rng.uniform(5, 14, m))),
    }
    shape_items(s, tl, items, GAS_SIGNALS)
    return items


def ward_labs(
    rng: np.random.Generator,
    admit: np.ndarray,
    disch: np.ndarray,
    cr_base: np.ndarray,
    subj: np.ndarray,
    windows: AdmissionWindows,
    rows: LabRows,
    q: QuirkRates,
) -> None:
    """Routine draws of ward admissions (on admission, then daily) and outpatient draws.

    ``subj`` is each admission's subject (patient index), ``windows`` every admission of
    the source, so that outpatient draws fall outside all of them.
    """
    n = len(admit)
    hct_base = rng.normal(40, 4.5, n)
    stay = daily_times(rng, admit, rng.uniform(0.3, 3.0, n), (disch - admit) / HOUR)
    clinic = outpatient_times(rng, admit, subj, windows)
    for tl in (stay, clinic):
        m = len(tl)
        cr = cr_base[tl.stay] * rng.normal(1.05, 0.12, m)
        sev = np.full(m, 0.1)
        null_hadm = _null_hadm(rng, tl, admit, disch, q)
        draws = Draws(tl, cr, sev, hct_base[tl.stay], null_hadm)
        routine_panels(rng, draws, rows, q, repeat=tl is stay)
    extra_items(rng, rows, q)
