"""Comorbidity concepts (charlson, creatinine_baseline) on hand-built admissions.

Expected values are worked out from the clinical rules, not from the SQL.
"""

from __future__ import annotations

from datetime import datetime

import pytest
from derived_inputs import by_key, prepare_inputs

FLAGS = [
    "myocardial_infarct",
    "congestive_heart_failure",
    "peripheral_vascular_disease",
    "cerebrovascular_disease",
    "dementia",
    "chronic_pulmonary_disease",
    "rheumatic_disease",
    "peptic_ulcer_disease",
    "mild_liver_disease",
    "diabetes_without_cc",
    "diabetes_with_cc",
    "paraplegia",
    "renal_disease",
    "malignant_cancer",
    "severe_liver_disease",
    "metastatic_solid_tumor",
    "aids",
]

# (icd_version, icd_code, the flag it sets or None)
CODES = [
    (9, "41071", "myocardial_infarct"),
    (10, "I252", "myocardial_infarct"),
    (9, "4280", "congestive_heart_failure"),
    (9, "4259", "congestive_heart_failure"),
    (9, "4253", None),  # just below the 4254-4259 range
    (10, "I5023", "congestive_heart_failure"),
    (10, "P290", "congestive_heart_failure"),
    (9, "4439", "peripheral_vascular_disease"),
    (10, "K551", "peripheral_vascular_disease"),
    (9, "438", "cerebrovascular_disease"),
    (10, "I639", "cerebrovascular_disease"),
    (10, "H340", "cerebrovascular_disease"),
    (9, "2941", "dementia"),
    (10, "F03", "dementia"),
    (9, "505", "chronic_pulmonary_disease"),
    (9, "5064", "chronic_pulmonary_disease"),
    (10, "J449", "chronic_pulmonary_disease"),
    (10, "J68", None),  # between the J60-J67 range and the J684 code
    (9, "7148", "rheumatic_disease"),
    (10, "M0579", "rheumatic_disease"),
    (9, "5321", "peptic_ulcer_disease"),
    (10, "K279", "peptic_ulcer_disease"),
    (9, "5715", "mild_liver_disease"),
    (9, "07054", "mild_liver_disease"),
    (10, "K760", "mild_liver_disease"),
    (9, "25000", "diabetes_without_cc"),
    (10, "E119", "diabetes_without_cc"),
    (10, "E10", None),  # three characters: no fourth digit to classify
    (9, "25060", "diabetes_with_cc"),
    (10, "E142", "diabetes_with_cc"),
    (10, "E152", None),  # E15 is not in E10-E14
    (9, "3449", "paraplegia"),
    (10, "G820", "paraplegia"),
    (9, "V420", "renal_disease"),
    (9, "5837", "renal_disease"),
    (9, "40391", "renal_disease"),
    (10, "N185", "renal_disease"),
    (10, "Z992", "renal_disease"),
    (9, "1749", "malignant_cancer"),
    (9, "195", "malignant_cancer"),  # '195' sorts inside ['1740', '1958'] as text
    (9, "2386", "malignant_cancer"),
    (10, "C4A9", "malignant_cancer"),  # 'C4A' sorts inside ['C45', 'C58'] as text
    (10, "C88", "malignant_cancer"),
    (10, "C86", None),  # between C81-C85 and C88
    (9, "5723", "severe_liver_disease"),
    (10, "K766", "severe_liver_disease"),
    (9, "1977", "metastatic_solid_tumor"),
    (10, "C787", "metastatic_solid_tumor"),
    (9, "042", "aids"),
    (10, "B24", "aids"),
    (10, "4280", None),  # an ICD-9 code labelled ICD-10 matches no ICD-10 rule
]


def _admission(insert, hadm_id: int, age: float) -> None:
    insert("mimiciv_hosp.admissions", [{"subject_id": hadm_id, "hadm_id": hadm_id}])
    insert("mimiciv_derived.age", [{"subject_id": hadm_id, "hadm_id": hadm_id, "age": age}])


def test_charlson_flags_each_category_by_icd_version_and_prefix(insert, build, rows):
    prepare_inputs(build, "age")
    for index, (version, code, _flag) in enumerate(CODES):
        hadm_id = 1000 + index
        _admission(insert, hadm_id, 30.0)
        insert(
            "mimiciv_hosp.diagnoses_icd",
            [
                {
                    "subject_id": hadm_id,
                    "hadm_id": hadm_id,
                    "seq_num": 1,
                    "icd_code": code,
                    "icd_version": version,
                }
            ],
        )
    _admission(insert, 1, 30.0)  # no diagnosis at all
    build("charlson", with_dependencies=False)
    got = by_key(rows("charlson"), "hadm_id")
    assert len(got) == len(CODES) + 1
    assert all(got[1][flag] == 0 for flag in FLAGS)
    for index, (version, code, flag) in enumerate(CODES):
        row = got[1000 + index]
        set_flags = [name for name in FLAGS if row[name] == 1]
        assert set_flags == ([flag] if flag else []), (version, code)


@pytest.mark.parametrize(
    ("age", "points"),
    [(18.0, 0), (50.0, 0), (50.001, 1), (60.0, 1), (70.0, 2), (70.5, 3), (80.0, 3), (80.001, 4)],
)
def test_charlson_age_points_use_the_fractional_age(insert, build, rows, age, points):
    prepare_inputs(build, "age")
    _admission(insert, 7, age)
    build("charlson", with_dependencies=False)
    row = rows("charlson")[0]
    assert row["age_score"] == points
    assert row["charlson_comorbidity_index"] == points


def test_charlson_index_applies_the_three_hierarchies_and_weights(insert, build, rows):
    prepare_inputs(build, "age")
    _admission(insert, 5, 65.0)  # 2 age points
    codes = [
        (9, "5715"),  # mild liver 1 ...
        (9, "4560"),  # ... severe liver 3 wins
        (9, "25000"),  # diabetes without cc 1 ...
        (9, "25040"),  # ... with cc 2 wins
        (10, "C18"),  # cancer 2 ...
        (10, "C78"),  # ... metastases 6 win
        (10, "G81"),  # paraplegia 2
        (10, "N18"),  # renal 2
        (10, "B20"),  # aids 6
        (10, "I21"),  # MI 1
        (10, "I21"),  # the same code twice counts once
    ]
    insert(
        "mimiciv_hosp.diagnoses_icd",
        [
            {"subject_id": 5, "hadm_id": 5, "seq_num": i, "icd_code": c, "icd_version": v}
            for i, (v, c) in enumerate(codes)
        ],
    )
    build("charlson", with_dependencies=False)
    row = rows("charlson")[0]
    assert row["mild_liver_disease"] == 1 and row["severe_liver_disease"] == 1
    assert row["diabetes_without_cc"] == 1 and row["diabetes_with_cc"] == 1
    assert row["malignant_cancer"] == 1 and row["metastatic_solid_tumor"] == 1
    assert row["charlson_comorbidity_index"] == 2 + 3 + 2 + 6 + 2 + 2 + 6 + 1


def _mdrd(age: float, female: bool) -> float:
    base = 75 / 186 / age**-0.203
    if female:
        base /= 0.742
    return float(base ** (-1 / 1.154))


def test_creatinine_baseline_rules(insert, build, rows):
    prepare_inputs(build, "age", "chemistry")
    people = [
        # hadm, gender, age, creatinine values (hadm-linked), ckd code
        (1, "M", 60.0, [1.4, 0.9], None),  # min <= 1.1 -> scr_min
        (2, "F", 45.5, [1.5, 1.3], None),  # min > 1.1, no CKD -> MDRD (female)
        (3, "M", 70.0, [2.5, 3.0], (9, "5853")),  # CKD -> scr_min even above 1.1
        (4, "M", 52.0, [], None),  # no creatinine, no CKD -> MDRD
        (5, "F", 80.0, [], (10, "N189")),  # no creatinine, CKD -> NULL
        (6, "M", 17.99, [1.0], None),  # under 18: no row
        (7, "F", 30.0, [1.1], (10, "N17")),  # N17 is not CKD; 1.1 is kept
    ]
    for hadm_id, gender, age, values, ckd_code in people:
        insert("mimiciv_hosp.patients", [{"subject_id": hadm_id, "gender": gender}])
        insert("mimiciv_derived.age", [{"subject_id": hadm_id, "hadm_id": hadm_id, "age": age}])
        insert(
            "mimiciv_derived.chemistry",
            [
                {
                    "subject_id": hadm_id,
                    "hadm_id": hadm_id,
                    "specimen_id": hadm_id * 10 + i,
                    "charttime": datetime(2150, 1, 1 + i),
                    "creatinine": v,
                }
                for i, v in enumerate(values)
            ],
        )
        if ckd_code:
            insert(
                "mimiciv_hosp.diagnoses_icd",
                [
                    {
                        "subject_id": hadm_id,
                        "hadm_id": hadm_id,
                        "seq_num": 1,
                        "icd_version": ckd_code[0],
                        "icd_code": ckd_code[1],
                    }
                ],
            )
    # a lab without hadm_id never counts, even for the same subject
    insert(
        "mimiciv_derived.chemistry",
        [{"subject_id": 2, "hadm_id": None, "specimen_id": 99, "creatinine": 0.5}],
    )
    build("creatinine_baseline", with_dependencies=False)
    got = by_key(rows("creatinine_baseline"), "hadm_id")
    assert sorted(got) == [1, 2, 3, 4, 5, 7]
    assert (got[1]["scr_min"], got[1]["ckd"], got[1]["scr_baseline"]) == (0.9, 0, 0.9)
    assert got[2]["scr_min"] == 1.3
    assert got[2]["scr_baseline"] == pytest.approx(_mdrd(45.5, True))
    assert got[2]["mdrd_est"] == pytest.approx(_mdrd(45.5, True))
    assert (got[3]["ckd"], got[3]["scr_baseline"]) == (1, 2.5)
    assert got[4]["scr_min"] is None
    assert got[4]["scr_baseline"] == pytest.approx(_mdrd(52.0, False))
    assert (got[5]["ckd"], got[5]["scr_min"], got[5]["scr_baseline"]) == (1, None, None)
    assert (got[7]["ckd"], got[7]["scr_baseline"]) == (0, 1.1)
    assert got[2]["gender"] == "F" and got[2]["age"] == 45.5
