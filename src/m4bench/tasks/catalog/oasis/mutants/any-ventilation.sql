-- KNOWN WRONG (mutant any-ventilation of reference.sql): any respiratory support episode counts as mechanical ventilation, not only invasive ones.
-- OASIS (Oxford Acute Severity of Illness Score) over the first ICU day (MIMIC-IV).
-- Reads: mimiciv_icu.icustays, mimiciv_hosp.admissions, mimiciv_hosp.patients,
-- mimiciv_hosp.services; mimiciv_derived age, first-day GCS, vital signs and urine output,
-- and ventilation. Grain: one row per ICU stay that joins to its admission and patient.
-- Pre-ICU length of stay = intime - admittime in fractional minutes. Vitals and GCS cover
-- [intime - 6 h, intime + 24 h], urine output [intime, intime + 24 h]. Ventilated = an
-- InvasiveVent episode overlapping [intime, intime + 24 h]. Elective surgery = admission type
-- ELECTIVE and a service row before intime + 24 h whose service contains 'surg' (any case) or
-- is ORTHO. A component with no data scores 0; a fractional age in (89, 90) scores 0.
WITH surgical AS (
    SELECT
        ie.stay_id,
        MAX(
            CASE
                WHEN LOWER(se.curr_service) LIKE '%surg%' OR se.curr_service = 'ORTHO' THEN 1
                ELSE 0
            END
        ) AS surgical
    FROM mimiciv_icu.icustays AS ie
    INNER JOIN mimiciv_hosp.services AS se
        ON se.hadm_id = ie.hadm_id
        AND se.transfertime < ie.intime + INTERVAL 24 HOUR
    GROUP BY ie.stay_id
),
vent AS (
    SELECT ie.stay_id, 1 AS mechvent
    FROM mimiciv_icu.icustays AS ie
    INNER JOIN mimiciv_derived.ventilation AS v
        ON v.stay_id = ie.stay_id
        AND v.starttime <= ie.intime + INTERVAL 24 HOUR
        AND v.endtime >= ie.intime
    GROUP BY ie.stay_id
),
inputs AS (
    SELECT
        ie.subject_id,
        ie.hadm_id,
        ie.stay_id,
        DATE_DIFF('microsecond', adm.admittime, ie.intime) / 60000000.0 AS preiculos,
        age.age,
        gcs.gcs_min,
        vital.heart_rate_min,
        vital.heart_rate_max,
        vital.mbp_min,
        vital.mbp_max,
        vital.resp_rate_min,
        vital.resp_rate_max,
        vital.temperature_min,
        vital.temperature_max,
        uo.urineoutput,
        COALESCE(vent.mechvent, 0) AS mechvent,
        CASE
            WHEN adm.admission_type IS NULL THEN NULL
            WHEN adm.admission_type = 'ELECTIVE' AND COALESCE(surgical.surgical, 0) = 1 THEN 1
            ELSE 0
        END AS electivesurgery
    FROM mimiciv_icu.icustays AS ie
    INNER JOIN mimiciv_hosp.admissions AS adm ON adm.hadm_id = ie.hadm_id
    INNER JOIN mimiciv_hosp.patients AS pat ON pat.subject_id = ie.subject_id
    LEFT JOIN mimiciv_derived.age AS age ON age.hadm_id = ie.hadm_id
    LEFT JOIN mimiciv_derived.first_day_gcs AS gcs ON gcs.stay_id = ie.stay_id
    LEFT JOIN mimiciv_derived.first_day_vitalsign AS vital ON vital.stay_id = ie.stay_id
    LEFT JOIN mimiciv_derived.first_day_urine_output AS uo ON uo.stay_id = ie.stay_id
    LEFT JOIN vent ON vent.stay_id = ie.stay_id
    LEFT JOIN surgical ON surgical.stay_id = ie.stay_id
),
scored AS (
    SELECT
        subject_id,
        hadm_id,
        stay_id,
        CASE
            WHEN preiculos < 10.2 THEN 5
            WHEN preiculos < 297 THEN 3
            WHEN preiculos < 1440 THEN 0
            WHEN preiculos < 18708 THEN 2
            WHEN preiculos IS NOT NULL THEN 1
        END AS preiculos_score,
        CASE
            WHEN age < 24 THEN 0
            WHEN age <= 53 THEN 3
            WHEN age <= 77 THEN 6
            WHEN age <= 89 THEN 9
            WHEN age >= 90 THEN 7
            ELSE 0
        END AS age_score,
        CASE
            WHEN gcs_min <= 7 THEN 10
            WHEN gcs_min < 14 THEN 4
            WHEN gcs_min = 14 THEN 3
            WHEN gcs_min IS NOT NULL THEN 0
        END AS gcs_score,
        CASE
            WHEN heart_rate_max > 125 THEN 6
            WHEN heart_rate_min < 33 THEN 4
            WHEN heart_rate_max >= 107 AND heart_rate_max <= 125 THEN 3
            WHEN heart_rate_max >= 89 AND heart_rate_max <= 106 THEN 1
            ELSE 0
        END AS heart_rate_score,
        CASE
            WHEN mbp_min < 20.65 THEN 4
            WHEN mbp_min < 51 THEN 3
            WHEN mbp_max > 143.44 THEN 3
            WHEN mbp_min >= 51 AND mbp_min < 61.33 THEN 2
            ELSE 0
        END AS mbp_score,
        CASE
            WHEN resp_rate_min < 6 THEN 10
            WHEN resp_rate_max > 44 THEN 9
            WHEN resp_rate_max > 30 THEN 6
            WHEN resp_rate_max > 22 THEN 1
            WHEN resp_rate_min < 13 THEN 1
            ELSE 0
        END AS resp_rate_score,
        CASE
            WHEN temperature_max > 39.88 THEN 6
            WHEN temperature_min >= 33.22 AND temperature_min <= 35.93 THEN 4
            WHEN temperature_max >= 33.22 AND temperature_max <= 35.93 THEN 4
            WHEN temperature_min < 33.22 THEN 3
            WHEN temperature_min > 35.93 AND temperature_min <= 36.39 THEN 2
            WHEN temperature_max >= 36.89 AND temperature_max <= 39.88 THEN 2
            ELSE 0
        END AS temp_score,
        CASE
            WHEN urineoutput < 671.09 THEN 10
            WHEN urineoutput > 6896.80 THEN 8
            WHEN urineoutput >= 671.09 AND urineoutput <= 1426.99 THEN 5
            WHEN urineoutput >= 1427.00 AND urineoutput <= 2544.14 THEN 1
            ELSE 0
        END AS urineoutput_score,
        CASE WHEN mechvent = 1 THEN 9 ELSE 0 END AS mechvent_score,
        CASE WHEN electivesurgery = 1 THEN 0 WHEN electivesurgery = 0 THEN 6 END
            AS electivesurgery_score
    FROM inputs
)
SELECT
    subject_id,
    hadm_id,
    stay_id,
    CAST(
        COALESCE(preiculos_score, 0) + COALESCE(age_score, 0) + COALESCE(gcs_score, 0)
        + COALESCE(heart_rate_score, 0) + COALESCE(mbp_score, 0) + COALESCE(resp_rate_score, 0)
        + COALESCE(temp_score, 0) + COALESCE(urineoutput_score, 0) + COALESCE(mechvent_score, 0)
        + COALESCE(electivesurgery_score, 0)
        AS INTEGER
    ) AS oasis,
    CAST(COALESCE(preiculos_score, 0) AS INTEGER) AS preiculos_score,
    CAST(COALESCE(age_score, 0) AS INTEGER) AS age_score,
    CAST(COALESCE(gcs_score, 0) AS INTEGER) AS gcs_score,
    CAST(COALESCE(heart_rate_score, 0) AS INTEGER) AS heart_rate_score,
    CAST(COALESCE(mbp_score, 0) AS INTEGER) AS mbp_score,
    CAST(COALESCE(resp_rate_score, 0) AS INTEGER) AS resp_rate_score,
    CAST(COALESCE(temp_score, 0) AS INTEGER) AS temp_score,
    CAST(COALESCE(urineoutput_score, 0) AS INTEGER) AS urineoutput_score,
    CAST(COALESCE(mechvent_score, 0) AS INTEGER) AS mechvent_score,
    CAST(COALESCE(electivesurgery_score, 0) AS INTEGER) AS electivesurgery_score
FROM scored
