"""Each deliberate quirk is present at its configured rate (HIGH_QUIRKS, 300 stays)."""

from __future__ import annotations

import duckdb
import pytest
from synth_helpers import HIGH_QUIRKS, one, rate

Q = HIGH_QUIRKS


def close(measured: float, expected: float, tolerance: float) -> None:
    assert abs(measured - expected) <= tolerance, (
        f"measured {measured:.3f}, configured {expected:.3f}"
    )


def test_temperature_unit_swaps(qcon: duckdb.DuckDBPyConnection) -> None:
    swapped = rate(
        qcon,
        """SELECT COUNT(*) FILTER (WHERE (itemid = 223761 AND valuenum < 50)
        OR (itemid = 223762 AND valuenum > 50)), COUNT(*) FROM mimiciv_icu.chartevents
        WHERE itemid IN (223761, 223762)""",
    )
    close(swapped, Q.temperature_unit_swap, 0.04)


def test_fio2_fractions_and_flow_typos(qcon: duckdb.DuckDBPyConnection) -> None:
    base = "FROM mimiciv_icu.chartevents WHERE itemid = 223835"
    close(
        rate(qcon, f"SELECT COUNT(*) FILTER (WHERE valuenum <= 1), COUNT(*) {base}"),
        Q.fio2_fraction,
        0.04,
    )
    close(
        rate(
            qcon, f"SELECT COUNT(*) FILTER (WHERE valuenum > 1 AND valuenum < 20), COUNT(*) {base}"
        ),
        Q.fio2_flow_typo,
        0.04,
    )
    labs = rate(
        qcon,
        """SELECT COUNT(*) FILTER (WHERE valuenum <= 1), COUNT(*) FROM mimiciv_hosp.labevents
        WHERE itemid = 50816 AND valuenum IS NOT NULL""",
    )
    close(labs, Q.fio2_fraction, 0.06)


def test_partial_gcs_charttimes(qcon: duckdb.DuckDBPyConnection) -> None:
    partial = rate(
        qcon,
        """SELECT COUNT(*) FILTER (WHERE n < 3), COUNT(*) FROM (SELECT stay_id, charttime,
        COUNT(DISTINCT itemid) n FROM mimiciv_icu.chartevents WHERE itemid IN (220739, 223900,
            223901)
        GROUP BY 1, 2)""",
    )
    close(partial, Q.gcs_partial, 0.05)
    ett = one(qcon, "SELECT COUNT(*) FROM mimiciv_icu.chartevents WHERE value = 'No Response-ETT'")
    assert int(ett) > 50  # type: ignore[call-overload]


def test_duplicate_charting_with_later_storetime(qcon: duckdb.DuckDBPyConnection) -> None:
    row = qcon.execute("""SELECT COUNT(*), COUNT(DISTINCT (stay_id, itemid, charttime, value,
        storetime)),
        COUNT(DISTINCT (stay_id, itemid, charttime, value)) FROM mimiciv_icu.chartevents
        WHERE itemid IN (220045, 220210, 220277)""").fetchone()
    assert row is not None
    total, distinct_store, distinct_value = row
    assert distinct_store == total  # re-entries differ by storetime
    close((total - distinct_value) / distinct_value, Q.chart_duplicate, 0.02)


def test_lab_text_values_and_out_of_range(qcon: duckdb.DuckDBPyConnection) -> None:
    text = rate(
        qcon,
        """SELECT COUNT(*) FILTER (WHERE value IN ('<0.2', '>500', 'HEMOLYZED', 'ERROR', '___')
        AND valuenum IS NULL), COUNT(*) FROM mimiciv_hosp.labevents WHERE itemid <> 52033""",
    )
    close(text, Q.lab_text_value, 0.02)
    beyond = rate(
        qcon,
        """SELECT COUNT(*) FILTER (WHERE valuenum > 150), COUNT(valuenum)
        FROM mimiciv_hosp.labevents WHERE itemid = 50912""",
    )
    close(beyond, Q.lab_out_of_range, 0.02)


def test_null_hadm_on_labs_and_cultures(qcon: duckdb.DuckDBPyConnection) -> None:
    inside = rate(
        qcon,
        """SELECT COUNT(*) FILTER (WHERE l.hadm_id IS NULL), COUNT(*) FROM mimiciv_hosp.labevents l
        JOIN mimiciv_icu.icustays i ON i.subject_id = l.subject_id AND l.charttime BETWEEN
            i.intime AND i.outtime
        JOIN mimiciv_hosp.admissions a ON a.hadm_id = i.hadm_id AND l.charttime BETWEEN
            a.admittime AND a.dischtime""",
    )
    close(inside, Q.lab_null_hadm, 0.04)
    micro = rate(
        qcon,
        """SELECT COUNT(*) FILTER (WHERE h IS NULL), COUNT(*) FROM (SELECT micro_specimen_id,
        MAX(hadm_id) h FROM mimiciv_hosp.microbiologyevents GROUP BY 1)""",
    )
    assert Q.micro_null_hadm - 0.06 <= micro <= Q.micro_null_hadm + 0.15


def test_date_only_cultures(qcon: duckdb.DuckDBPyConnection) -> None:
    share = rate(
        qcon,
        """SELECT COUNT(*) FILTER (WHERE t IS NULL), COUNT(*) FROM (SELECT micro_specimen_id,
        MAX(charttime) t FROM mimiciv_hosp.microbiologyevents GROUP BY 1)""",
    )
    close(share, Q.micro_date_only, 0.07)
    assert (
        one(
            qcon,
            "SELECT COUNT(*) FROM mimiciv_hosp.microbiologyevents WHERE chartdate <> "
            "DATE_TRUNC('day', chartdate)",
        )
        == 0
    )


def test_simultaneous_arterial_and_venous_gases(qcon: duckdb.DuckDBPyConnection) -> None:
    pairs = rate(
        qcon,
        """WITH s AS (SELECT subject_id, charttime, specimen_id, MAX(value) kind
        FROM mimiciv_hosp.labevents WHERE itemid = 52033 GROUP BY ALL)
        SELECT COUNT(*) FILTER (WHERE EXISTS (SELECT 1 FROM s v WHERE v.subject_id = a.subject_id
            AND v.charttime = a.charttime AND v.kind = 'VEN.' AND v.specimen_id <>
                a.specimen_id)), COUNT(*)
        FROM s a WHERE a.kind = 'ART.'""",
    )
    close(pairs, Q.bg_simultaneous_venous, 0.06)


def test_devices_with_and_without_flow(qcon: duckdb.DuckDBPyConnection) -> None:
    without = rate(
        qcon,
        """WITH d AS (SELECT DISTINCT subject_id, charttime FROM mimiciv_icu.chartevents
            WHERE itemid = 226732 AND value IN ('Nasal cannula', 'Face tent', 'Aerosol-cool',
                'Non-rebreather'))
        SELECT COUNT(*) FILTER (WHERE NOT EXISTS (SELECT 1 FROM mimiciv_icu.chartevents f
            WHERE f.subject_id = d.subject_id AND f.charttime = d.charttime AND f.itemid =
                223834)), COUNT(*) FROM d""",
    )
    close(without, Q.device_without_flow, 0.06)


def test_vasopressor_unit_variants_and_overlaps(qcon: duckdb.DuckDBPyConnection) -> None:
    variants = rate(
        qcon,
        """SELECT COUNT(*) FILTER (WHERE rateuom IN ('mg/kg/min', 'mcg/min', 'units/min')),
        COUNT(*) FROM mimiciv_icu.inputevents WHERE itemid IN
            (221906, 221289, 221662, 221653, 221749, 222315, 221986)""",
    )
    close(variants, Q.vasopressor_unit_variant, 0.05)
    assert (
        one(
            qcon,
            "SELECT MAX(patientweight) FROM mimiciv_icu.inputevents WHERE rateuom = 'mg/kg/min'",
        )
        == 1.0
    )
    overlaps = one(
        qcon,
        """SELECT COUNT(*) FROM mimiciv_icu.inputevents a JOIN mimiciv_icu.inputevents b
        ON a.stay_id = b.stay_id AND a.itemid = b.itemid AND a.linkorderid < b.linkorderid
        AND a.starttime < b.endtime AND b.starttime < a.endtime WHERE a.itemid = 221906""",
    )
    assert int(overlaps) > 0  # type: ignore[call-overload]


def test_absurd_weights(qcon: duckdb.DuckDBPyConnection) -> None:
    absurd = rate(
        qcon,
        """SELECT COUNT(*) FILTER (WHERE valuenum <= 1 OR valuenum >= 1500), COUNT(*)
        FROM mimiciv_icu.chartevents WHERE itemid IN (226512, 224639)""",
    )
    close(absurd, Q.absurd_weight * 3 / 4, 0.05)


def test_off_hour_times(qcon: duckdb.DuckDBPyConnection) -> None:
    odd = rate(
        qcon,
        """SELECT COUNT(*) FILTER (WHERE MINUTE(charttime) <> 0), COUNT(*)
        FROM mimiciv_icu.chartevents WHERE itemid = 220045""",
    )
    close(odd, Q.off_hour_time, 0.03)


def test_icu_before_admission(qcon: duckdb.DuckDBPyConnection) -> None:
    early = rate(
        qcon,
        """SELECT COUNT(*) FILTER (WHERE i.intime < a.admittime), COUNT(*) FROM
            mimiciv_icu.icustays i
        JOIN mimiciv_hosp.admissions a USING (hadm_id)
        WHERE i.intime = (SELECT MIN(intime) FROM mimiciv_icu.icustays j WHERE j.hadm_id =
            i.hadm_id)""",
    )
    close(early, Q.icu_before_admission, 0.08)


def test_null_route_antibiotics(qcon: duckdb.DuckDBPyConnection) -> None:
    null = rate(
        qcon,
        """SELECT COUNT(*) FILTER (WHERE route IS NULL), COUNT(*) FROM mimiciv_hosp.prescriptions
        WHERE drug IN ('Vancomycin', 'CefTRIAXone', 'Piperacillin-Tazobactam', 'CefePIME',
            'Meropenem', 'CeFAZolin')""",
    )
    close(null, Q.null_route_antibiotic, 0.06)


def test_death_typos_and_organ_donors(qcon: duckdb.DuckDBPyConnection) -> None:
    typo = rate(
        qcon,
        """SELECT COUNT(*) FILTER (WHERE deathtime <> dischtime), COUNT(*) FROM
            mimiciv_hosp.admissions
        WHERE deathtime IS NOT NULL AND dischtime >= admittime""",
    )
    assert Q.deathtime_typo - 0.2 <= typo <= Q.deathtime_typo + 0.1
    donors = one(
        qcon,
        "SELECT COUNT(*) FROM mimiciv_hosp.admissions WHERE dischtime < admittime AND "
        "deathtime IS NOT NULL",
    )
    assert int(donors) > 0  # type: ignore[call-overload]


@pytest.mark.parametrize("table", ["chartevents"])
def test_default_build_has_no_extreme_quirk_rates(
    con: duckdb.DuckDBPyConnection, table: str
) -> None:
    """The default rates are small: the fixture source stays mostly clean."""
    swapped = rate(
        con,
        f"""SELECT COUNT(*) FILTER (WHERE itemid = 223761 AND valuenum < 50), COUNT(*)
        FROM mimiciv_icu.{table} WHERE itemid = 223761""",
    )
    assert swapped < 0.05
