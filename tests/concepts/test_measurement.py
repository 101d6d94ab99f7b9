"""Laboratory panels and charted measurements on hand-built patients.

Expected rows are worked out from the clinical rules, not from the SQL.
"""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from concept_rows import at, chart, lab, stay


def by_specimen(rows: list[dict[str, object]]) -> dict[object, dict[str, object]]:
    return {r["specimen_id"]: r for r in rows}


# --- laboratory panels ---------------------------------------------------------------------


def test_chemistry_bounds_sign_filter_and_specimen_grouping(insert, build, rows):
    insert(
        "mimiciv_hosp.labevents",
        [
            lab(1, 1, 50912, 1, 1.2, hadm_id=10),
            lab(1, 1, 50912, 1, 1.4),  # MAX per item; hadm_id is the MAX over rows (10)
            lab(1, 1, 50912, 1, 200),  # above the creatinine bound of 150: ignored
            lab(1, 1, 50868, 1, -2),  # anion gap may be <= 0
            lab(1, 1, 50882, 1, 0),  # bicarbonate 0 fails the > 0 row filter
            lab(1, 1, 50983, 1, None, value="HEMOLYZED"),
            lab(1, 2, 50971, 2, 35),  # only an out-of-bound potassium: a row of NULLs
            lab(1, 3, 50931, 3, 0),  # only a zero glucose: no row at all
            lab(1, 4, 50813, 4, 2.0),  # lactate is not a chemistry item
        ],
    )
    build("chemistry")
    got = by_specimen(rows("chemistry"))
    assert set(got) == {1, 2}
    first = got[1]
    assert (first["subject_id"], first["hadm_id"], first["charttime"]) == (1, 10, at(1))
    assert (first["creatinine"], first["aniongap"]) == (1.4, -2)
    assert first["bicarbonate"] is None and first["sodium"] is None
    assert all(
        v is None
        for k, v in got[2].items()
        if k not in {"subject_id", "hadm_id", "charttime", "specimen_id"}
    )


def test_complete_blood_count_uses_51301_only_for_wbc(insert, build, rows):
    insert(
        "mimiciv_hosp.labevents",
        [
            lab(1, 1, 51301, 0, 12),
            lab(1, 1, 51300, 0, 30),  # a differential white count: not the CBC wbc
            lab(1, 1, 51265, 0, 0),  # platelet 0 fails the > 0 filter
            lab(1, 1, 51222, 0, 9.5),
            lab(1, 1, 51221, 0, 28),
        ],
    )
    build("complete_blood_count")
    (row,) = rows("complete_blood_count")
    assert (row["wbc"], row["platelet"], row["hemoglobin"], row["hematocrit"]) == (
        12,
        None,
        9.5,
        28,
    )


def test_blood_differential_imputes_absolute_counts(insert, build, rows):
    insert(
        "mimiciv_hosp.labevents",
        [
            # specimen 1: wbc 7.3; neutrophils 66.7 % -> 7.3 * 66.7 / 100 = 4.8691 -> 4.869
            lab(1, 1, 51301, 0, 7.3),
            lab(1, 1, 51256, 0, 66.7),
            lab(1, 1, 51245, 0, 10),  # second lymphocyte % item -> 0.730
            lab(1, 1, 51199, 0, 150),  # eosinophils in /uL -> 0.150 K/uL
            lab(1, 1, 52074, 0, 0.7),  # monocytes measured: no imputation
            lab(1, 1, 51254, 0, 50),
            lab(1, 1, 51144, 0, 3),  # bands: kept as is
            # specimen 2: wbc 0 -> nothing is imputed
            lab(1, 2, 51301, 1, 0),
            lab(1, 2, 51256, 1, 50),
            # specimen 3: the percentages sum to 0 -> nothing is imputed
            lab(1, 3, 51755, 2, 5),
            lab(1, 3, 51256, 2, 0),
            lab(1, 3, 51244, 2, 0),
            # a negative value fails the >= 0 row filter
            lab(1, 3, 51146, 2, -1),
        ],
    )
    build("blood_differential")
    got = by_specimen(rows("blood_differential"))
    first = got[1]
    assert first["wbc"] == 7.3
    assert first["neutrophils_abs"] == Decimal("4.869")
    assert first["lymphocytes_abs"] == Decimal("0.730")
    assert first["eosinophils_abs"] == Decimal("0.150")
    assert first["monocytes_abs"] == Decimal("0.700")
    assert first["basophils_abs"] is None
    assert (first["neutrophils"], first["lymphocytes"], first["bands"]) == (66.7, 10, 3)
    assert got[2]["neutrophils_abs"] is None and got[2]["neutrophils"] == 50
    assert got[3]["wbc"] == 5
    assert got[3]["neutrophils_abs"] is None and got[3]["lymphocytes_abs"] is None
    assert got[3]["basophils"] is None


def test_coagulation_has_no_sign_filter(insert, build, rows):
    insert(
        "mimiciv_hosp.labevents",
        [
            lab(1, 1, 51237, 0, 1.1),
            lab(1, 1, 51274, 0, 12.5),
            lab(1, 1, 51275, 0, 30),
            lab(1, 1, 51297, 0, -1),
            lab(1, 1, 51196, 0, None),
        ],
    )
    build("coagulation")
    (row,) = rows("coagulation")
    assert (row["inr"], row["pt"], row["ptt"], row["thrombin"], row["d_dimer"]) == (
        1.1,
        12.5,
        30,
        -1,
        None,
    )


def test_enzyme_takes_positive_maximum(insert, build, rows):
    insert(
        "mimiciv_hosp.labevents",
        [
            lab(1, 1, 50885, 0, 0.5),
            lab(1, 1, 50885, 0, 2.5),
            lab(1, 1, 50861, 0, 0),
            lab(1, 1, 50911, 0, 4),
        ],
    )
    build("enzyme")
    (row,) = rows("enzyme")
    assert (row["bilirubin_total"], row["alt"], row["ck_mb"]) == (2.5, None, 4)


def test_cardiac_marker_and_inflammation_panels(insert, build, rows):
    insert(
        "mimiciv_hosp.labevents",
        [
            lab(1, 1, 51003, 0, 0.01),
            lab(1, 1, 50963, 0, 1200),
            lab(1, 2, 50889, 1, 0),  # crp 0 fails the > 0 filter: no row
            lab(1, 3, 50889, 2, 5.2),
        ],
    )
    build("cardiac_marker", "inflammation")
    (marker,) = rows("cardiac_marker")
    assert (marker["troponin_t"], marker["ntprobnp"], marker["ck_mb"]) == (0.01, 1200, None)
    assert [(r["specimen_id"], r["crp"]) for r in rows("inflammation")] == [(3, 5.2)]


# --- blood gas -------------------------------------------------------------------------------


def test_bg_fio2_sources_derived_ratios_and_specimen_filter(insert, build, rows):
    insert(
        "mimiciv_hosp.labevents",
        [
            # specimen 1 at 0.5 h: arterial, lab FiO2 0.5 -> 50
            lab(1, 1, 52033, 0.5, value="ART."),
            lab(1, 1, 50821, 0.5, 90),
            lab(1, 1, 50818, 0.5, 40),
            lab(1, 1, 50816, 0.5, 0.5),
            lab(1, 1, 50817, 0.5, 101),  # so2 above 100: NULL
            lab(1, 1, 50813, 0.5, 10001),  # lactate above 10000: NULL
            # specimen 2 at 6 h: no specimen-type row, no lab FiO2, no pCO2
            lab(1, 2, 50821, 6, 70),
            lab(1, 2, 50816, 6, 20),  # exactly 20 is outside (20, 100]: NULL
            # specimen 3 at 8 h: no pO2 -> not a blood gas row
            lab(1, 3, 50818, 8, 45),
        ],
    )
    insert(
        "mimiciv_icu.chartevents",
        [
            chart(1, 223835, 0, 40),  # 0.5 h before specimen 1
            chart(1, 223835, 1, 0.6),  # after specimen 1; 5 h before specimen 2: outside both
            chart(1, 223835, 3, 0.55),  # -> 55, 3 h before specimen 2
            chart(1, 223835, 5, 15),  # (1, 20): NULL, skipped
            chart(1, 223835, 5.5, 0.2),  # exactly 0.2: NULL in bg, skipped
        ],
    )
    build("bg")
    got = rows("bg", order_by="charttime")
    assert [r["charttime"] for r in got] == [at(0.5), at(6)]
    art, other = got
    assert (art["specimen"], art["fio2"], art["fio2_chartevents"]) == ("ART.", 50, 40)
    assert art["so2"] is None and art["lactate"] is None
    assert art["aado2_calc"] == pytest.approx(50 / 100 * 713 - 40 / 0.8 - 90)  # 216.5
    assert art["pao2fio2ratio"] == pytest.approx(180)
    assert other["specimen"] is None
    assert other["fio2"] is None
    assert other["fio2_chartevents"] == pytest.approx(55)
    assert other["aado2_calc"] is None  # no pCO2
    assert other["pao2fio2ratio"] == pytest.approx(100 * 70 / 55)


def test_bg_collapses_simultaneous_specimens_of_one_subject(insert, build, rows):
    insert(
        "mimiciv_hosp.labevents",
        [
            lab(2, 41, 52033, 2, value="ART."),
            lab(2, 41, 50821, 2, 80),
            lab(2, 40, 52033, 2, value="VEN."),
            lab(2, 40, 50821, 2, 40),
            # another subject at the same time is not affected
            lab(3, 42, 50821, 2, 95),
        ],
    )
    build("bg")
    got = rows("bg", order_by="subject_id")
    assert [(r["subject_id"], r["specimen"], r["po2"]) for r in got] == [
        (2, "VEN.", 40),  # one survivor per subject and time: the lowest specimen_id
        (3, None, 95),
    ]


# --- charted measurements ----------------------------------------------------------------------


def test_vitalsign_averages_bounds_and_temperature_rounding(insert, build, rows):
    insert(
        "mimiciv_icu.chartevents",
        [
            chart(1, 220045, 1, 80),
            chart(1, 220045, 1, 90),
            chart(1, 220045, 1, 300),  # bound is exclusive
            chart(1, 220050, 1, 120),  # invasive and non-invasive averaged together
            chart(1, 220179, 1, 100),
            chart(1, 220181, 1, 70),
            chart(1, 220210, 1, 16),
            chart(1, 224690, 1, 20),
            # 98.6 F = 37.0 C; with 37.49 C the mean 37.245 casts to 37.245, rounds to 37.25
            chart(1, 223761, 1, 98.6),
            chart(1, 223762, 1, 37.49),
            chart(1, 223761, 1, 37.2),  # a Celsius number in the Fahrenheit item: dropped
            chart(1, 223762, 1, 98.6),  # a Fahrenheit number in the Celsius item: dropped
            chart(1, 224642, 1, value="Oral"),
            chart(1, 220277, 1, 100),  # spo2 upper bound is inclusive
            chart(1, 220277, 1, 0),
            chart(1, 225664, 1, 120),
            # a time with only the temperature site: a row of NULL numbers
            chart(1, 224642, 2, value="Axillary"),
            # rows without a stay are ignored
            {
                "subject_id": 1,
                "stay_id": None,
                "itemid": 220045,
                "charttime": at(3),
                "valuenum": 60,
            },
        ],
    )
    build("vitalsign")
    first, second = rows("vitalsign", order_by="charttime")
    assert (first["heart_rate"], first["sbp"], first["sbp_ni"], first["mbp"]) == (85, 110, 100, 70)
    assert first["mbp_ni"] == 70 and first["dbp"] is None
    assert first["resp_rate"] == 18
    assert first["temperature"] == Decimal("37.25")
    assert (first["temperature_site"], first["spo2"], first["glucose"]) == ("Oral", 100, 120)
    assert second["charttime"] == at(2) and second["temperature_site"] == "Axillary"
    assert second["heart_rate"] is None and second["temperature"] is None


EYES, VERBAL, MOTOR = 220739, 223900, 223901
ETT = "No Response-ETT"


def test_gcs_carry_forward_example(insert, build, rows):
    insert(
        "mimiciv_icu.chartevents",
        [
            chart(1, MOTOR, 0, 6),
            chart(1, EYES, 0, 4),
            chart(1, VERBAL, 0, 1, value=ETT),
            chart(1, MOTOR, 1, 5),
            chart(1, VERBAL, 2, 4),
            chart(1, MOTOR, 9, 3),  # 7 h after the previous row: nothing carried
        ],
    )
    build("gcs")
    got = [
        (r["charttime"], r["gcs"], r["gcs_motor"], r["gcs_verbal"], r["gcs_eyes"], r["gcs_unable"])
        for r in rows("gcs", order_by="charttime")
    ]
    assert got == [
        (at(0), 15, 6, 0, 4, 1),
        (at(1), 15, 5, 0, 4, 0),
        (at(2), 13, 5, 4, None, 0),
        (at(9), 12, 3, None, None, 0),
    ]


def test_gcs_previous_ett_forces_default_sum_and_same_time_edge(insert, build, rows):
    insert(
        "mimiciv_icu.chartevents",
        [
            # stay 2: ETT row then a verbal-only row -> 6 (default) + 3 + 4 (default) = 13
            chart(2, MOTOR, 0, 6),
            chart(2, EYES, 0, 4),
            chart(2, VERBAL, 0, 1, value=ETT),
            chart(2, VERBAL, 1, 3),
            # stay 3: ETT and a real verbal at the same time: verbal is the real one, unable 1
            chart(3, MOTOR, 0, 5),
            chart(3, EYES, 0, 3),
            chart(3, VERBAL, 0, 1, value=ETT),
            chart(3, VERBAL, 0, 4, value="Confused"),
            # a time whose rows carry no number: scored from the previous row
            chart(3, EYES, 5.9, None, value="Unknown"),
        ],
    )
    build("gcs")
    got = [
        (r["stay_id"], r["gcs"], r["gcs_motor"], r["gcs_verbal"], r["gcs_eyes"], r["gcs_unable"])
        for r in rows("gcs", order_by="stay_id, charttime")
    ]
    assert got == [
        (2, 15, 6, 0, 4, 1),
        (2, 13, 6, 3, 4, 0),
        (3, 12, 5, 4, 3, 1),
        (3, 12, 5, 4, 3, 0),
    ]


def test_urine_output_negates_irrigant_and_keeps_zero(insert, build, rows):
    insert(
        "mimiciv_icu.outputevents",
        [
            {"subject_id": 1, "stay_id": 1, "itemid": 226559, "charttime": at(1), "value": 100},
            {"subject_id": 1, "stay_id": 1, "itemid": 227488, "charttime": at(1), "value": 50},
            {"subject_id": 1, "stay_id": 1, "itemid": 227488, "charttime": at(2), "value": 30},
            {"subject_id": 1, "stay_id": 1, "itemid": 227488, "charttime": at(3), "value": -20},
            {"subject_id": 1, "stay_id": 1, "itemid": 226559, "charttime": at(4), "value": 0},
            {"subject_id": 1, "stay_id": 1, "itemid": 226588, "charttime": at(5), "value": 40},
        ],
    )
    build("urine_output")
    assert [(r["charttime"], r["urineoutput"]) for r in rows("urine_output")] == [
        (at(1), 50),
        (at(2), -30),
        (at(3), -20),
        (at(4), 0),
    ]


def urine(stay_id: int, hours: float, value: float) -> dict[str, object]:
    return {
        "subject_id": stay_id,
        "stay_id": stay_id,
        "itemid": 226559,
        "charttime": at(hours),
        "value": value,
    }


def test_urine_output_rate_windows_gates_and_weight(insert, build, rows):
    insert("mimiciv_icu.icustays", [stay(1, 10, 1), stay(2, 20, 2)])
    insert(
        "mimiciv_icu.chartevents",
        [
            chart(1, 220045, -0.5, 80),  # heart-rate anchor 07:30
            chart(1, 220045, 70, 80),
            chart(1, 226512, 1, 70),  # admission weight 70 kg from intime - 2 h
            # stay 2's only heart rate is more than a month after outtime: stay dropped
            chart(2, 220045, 72 + 24 * 32, 80),
        ],
    )
    insert(
        "mimiciv_icu.outputevents",
        [
            urine(1, 1.5, 100),
            urine(1, 3.5, 50),
            urine(1, 6.5, 60),
            urine(1, 12.5, 90),
            urine(2, 1, 100),
        ],
    )
    build("urine_output_rate")
    got = {r["charttime"]: r for r in rows("urine_output_rate")}
    assert set(got) == {at(1.5), at(3.5), at(6.5), at(12.5)}
    first = got[at(1.5)]  # 120 min since the first heart rate
    assert (first["weight"], first["uo"], first["uo_tm_6hr"]) == (70, 100, Decimal("2.00"))
    assert first["uo_mlkghr_6hr"] is None
    third = got[at(6.5)]  # rows 5, 3 and 0 h back, 120 + 120 + 180 min = 7 h
    assert (third["urineoutput_6hr"], third["uo_tm_6hr"]) == (210, Decimal("7.00"))
    assert third["uo_mlkghr_6hr"] == Decimal("0.429")  # 210 / 70 / 7 = 0.428571...
    assert third["uo_mlkghr_12hr"] is None  # 7 h < 12 h
    last = got[at(12.5)]  # rows 11, 9, 6 and 0 h back
    assert (last["urineoutput_6hr"], last["uo_tm_6hr"]) == (90, Decimal("6.00"))
    assert last["uo_mlkghr_6hr"] == Decimal("0.214")  # 90 / 70 / 6 = 0.2142857
    assert (last["urineoutput_12hr"], last["uo_tm_12hr"]) == (300, Decimal("13.00"))
    assert last["uo_mlkghr_12hr"] == Decimal("0.330")  # 300 / 70 / 13 = 0.32967
    assert (last["urineoutput_24hr"], last["uo_mlkghr_24hr"]) == (300, None)


def test_urine_output_rate_without_weight_has_no_rates(insert, build, rows):
    insert("mimiciv_icu.icustays", [stay(1, 10, 1)])
    insert("mimiciv_icu.chartevents", [chart(1, 220045, 0, 80)])
    insert("mimiciv_icu.outputevents", [urine(1, 6, 300), urine(1, -1, 50)])
    build("urine_output_rate")
    got = rows("urine_output_rate", order_by="charttime")
    # the first urine row precedes the first heart rate: a negative interval, kept
    assert got[0]["uo_tm_6hr"] == Decimal("-1.00")
    assert got[1]["uo_tm_6hr"] == Decimal("7.00")  # 7 h since the previous urine row
    assert got[1]["weight"] is None and got[1]["uo_mlkghr_6hr"] is None


def test_ventilator_setting_conversions(insert, build, rows):
    insert(
        "mimiciv_icu.chartevents",
        [
            chart(1, 223835, 1, 0.5),
            chart(1, 220339, 1, 5),
            chart(1, 224700, 1, 150),
            chart(1, 223849, 1, value="CMV/ASSIST"),
            chart(1, 224684, 1, 450),
            chart(1, 223835, 2, 0.2),  # the closed 0.20 bound keeps this one (-> 20)
            chart(1, 223835, 3, 10),  # (1, 20): NULL
            chart(1, 223835, 4, 100),
            chart(1, 224700, 4, -1),
            {
                "subject_id": 1,
                "stay_id": None,
                "itemid": 224684,
                "charttime": at(5),
                "valuenum": 500,
                "value": "500",
            },
            chart(1, 224684, 6, None),  # value NULL: not a row
        ],
    )
    build("ventilator_setting")
    got = [
        (r["charttime"], r["fio2"], r["peep"], r["ventilator_mode"], r["tidal_volume_set"])
        for r in rows("ventilator_setting", order_by="charttime")
    ]
    assert got == [
        (at(1), 50, 5, "CMV/ASSIST", 450),
        (at(2), 20, None, None, None),
        (at(3), None, None, None, None),
        (at(4), 100, None, None, None),
    ]


def test_oxygen_delivery_latest_storetime_device_order_and_dropped_devices(insert, build, rows):
    t1, t3 = at(1), at(3)
    insert(
        "mimiciv_icu.chartevents",
        [
            chart(1, 223834, 1, 2, storetime=t1 + timedelta(minutes=5)),
            chart(1, 223834, 1, 3, storetime=t1 + timedelta(minutes=50)),  # latest: kept
            chart(1, 226732, 1, value="Nasal cannula"),
            chart(1, 226732, 1, value="Face tent"),
            chart(1, 226732, 2, value="Bipap mask "),  # no flow at 2 h: dropped
            # BiPap flow and O2 flow at one time map to one item: the later storetime wins
            chart(1, 227582, 3, 10, storetime=t3 + timedelta(minutes=30)),
            chart(1, 223834, 3, 4, storetime=t3 + timedelta(minutes=10)),
            chart(1, 227287, 3, 2, storetime=t3),
        ],
    )
    build("oxygen_delivery")
    got = [
        (
            r["charttime"],
            r["o2_flow"],
            r["o2_flow_additional"],
            r["o2_delivery_device_1"],
            r["o2_delivery_device_2"],
        )
        for r in rows("oxygen_delivery", order_by="charttime")
    ]
    assert got == [
        (at(1), 3, None, "Face tent", "Nasal cannula"),
        (at(3), 10, 2, None, None),
    ]


def test_icp_and_rhythm(insert, build, rows):
    insert(
        "mimiciv_icu.chartevents",
        [
            chart(1, 220765, 1, 15),
            chart(1, 227989, 1, 20),
            chart(1, 220765, 2, 150),  # out of range: the row stays, icp NULL
            chart(1, 220048, 1, value="SR (Sinus Rhythm)"),
            chart(1, 224650, 1, value="PVC's"),
        ],
    )
    build("icp", "rhythm")
    assert [(r["charttime"], r["icp"]) for r in rows("icp")] == [(at(1), 20), (at(2), None)]
    (rhythm,) = rows("rhythm")
    assert (rhythm["heart_rhythm"], rhythm["ectopy_type"], rhythm["ectopy_frequency"]) == (
        "SR (Sinus Rhythm)",
        "PVC's",
        None,
    )


def test_urine_output_rate_trailing_window_ends_23_hours_back(insert, build, rows):
    insert("mimiciv_icu.icustays", [stay(1, 10, 1)])
    insert("mimiciv_icu.chartevents", [chart(1, 220045, 0, 80), chart(1, 226512, 0.5, 50)])
    insert("mimiciv_icu.outputevents", [urine(1, 1, 100), urine(1, 24, 200), urine(1, 25, 300)])
    build("urine_output_rate")
    got = {r["charttime"]: r for r in rows("urine_output_rate")}
    at_24 = got[at(24)]  # the row 23 h back is inside the 24 h sums only
    assert (at_24["urineoutput_24hr"], at_24["uo_tm_24hr"]) == (300, Decimal("24.00"))
    assert at_24["uo_mlkghr_24hr"] == Decimal("0.250")  # 300 / 50 / 24
    assert (at_24["urineoutput_12hr"], at_24["uo_tm_12hr"]) == (200, Decimal("23.00"))
    assert at_24["uo_mlkghr_12hr"] == Decimal("0.174")  # 200 / 50 / 23 = 0.1739
    at_25 = got[at(25)]  # the row 24 h back has left the window
    assert (at_25["urineoutput_24hr"], at_25["uo_tm_24hr"]) == (500, Decimal("24.00"))
    assert at_25["uo_mlkghr_24hr"] == Decimal("0.417")  # 500 / 50 / 24 = 0.41666
