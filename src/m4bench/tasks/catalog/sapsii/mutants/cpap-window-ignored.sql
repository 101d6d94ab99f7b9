-- KNOWN WRONG (mutant cpap-window-ignored of reference.sql): only gases under invasive ventilation count for the P/F ratio; CPAP/BiPAP windows are ignored.
-- SAPS-II (Simplified Acute Physiology Score II) over the first ICU day (MIMIC-IV).
-- Reads: mimiciv_icu.icustays, mimiciv_icu.chartevents (O2 delivery device), mimiciv_hosp
-- admissions, services and diagnoses_icd; mimiciv_derived age, bg, chemistry,
-- complete_blood_count, enzyme, gcs, urine_output, ventilation and vitalsign.
-- Grain: one row per ICU stay that joins to its admission.
-- Every timed input lies in (intime, intime + 24 h]; vitals, labs and gases are matched by
-- subject_id, GCS and urine output by stay_id. A P/F ratio counts when its arterial gas lies
-- in an InvasiveVent episode (starttime < t <= endtime) or in the stay's CPAP window
-- [first CPAP/BiPAP device charting - 1 h, last + 4 h] clipped to the day (t strictly after
-- the window start). Admission type uses the first services row by transfertime (NULL
-- first; ties by service name, ascending). A component with no data scores 0.
WITH stays AS (
    SELECT
        ie.subject_id,
        ie.hadm_id,
        ie.stay_id,
        ie.intime AS starttime,
        ie.intime + INTERVAL 24 HOUR AS endtime,
        adm.admission_type
    FROM mimiciv_icu.icustays AS ie
    INNER JOIN mimiciv_hosp.admissions AS adm ON adm.hadm_id = ie.hadm_id
),
cpap AS (
    SELECT
        s.subject_id,
        s.stay_id,
        GREATEST(MIN(ce.charttime) - INTERVAL 1 HOUR, s.starttime) AS starttime,
        LEAST(MAX(ce.charttime) + INTERVAL 4 HOUR, s.endtime) AS endtime
    FROM stays AS s
    INNER JOIN mimiciv_icu.chartevents AS ce
        ON ce.stay_id = s.stay_id
        AND ce.charttime > s.starttime
        AND ce.charttime <= s.endtime
        AND ce.itemid = 226732
        AND REGEXP_MATCHES(LOWER(ce.value), 'cpap mask|bipap')
    GROUP BY s.subject_id, s.stay_id, s.starttime, s.endtime
),
supported_gases AS (
    SELECT s.stay_id, bg.pao2fio2ratio
    FROM stays AS s
    INNER JOIN mimiciv_derived.bg AS bg
        ON bg.subject_id = s.subject_id
        AND bg.specimen = 'ART.'
        AND bg.charttime > s.starttime
        AND bg.charttime <= s.endtime
    WHERE EXISTS (
            SELECT 1
            FROM mimiciv_derived.ventilation AS v
            WHERE v.stay_id = s.stay_id
                AND v.ventilation_status = 'InvasiveVent'
                AND bg.charttime > v.starttime
                AND bg.charttime <= v.endtime
        )
),
pafi AS (
    SELECT stay_id, MIN(pao2fio2ratio) AS pao2fio2_vent_min
    FROM supported_gases
    GROUP BY stay_id
),
vitals AS (
    SELECT
        s.stay_id,
        MIN(v.heart_rate) AS heart_rate_min,
        MAX(v.heart_rate) AS heart_rate_max,
        MIN(v.sbp) AS sysbp_min,
        MAX(v.sbp) AS sysbp_max,
        MAX(v.temperature) AS tempc_max
    FROM stays AS s
    INNER JOIN mimiciv_derived.vitalsign AS v
        ON v.subject_id = s.subject_id
        AND v.charttime > s.starttime
        AND v.charttime <= s.endtime
    GROUP BY s.stay_id
),
urine AS (
    SELECT s.stay_id, SUM(uo.urineoutput) AS urineoutput
    FROM stays AS s
    INNER JOIN mimiciv_derived.urine_output AS uo
        ON uo.stay_id = s.stay_id
        AND uo.charttime > s.starttime
        AND uo.charttime <= s.endtime
    GROUP BY s.stay_id
),
chem AS (
    SELECT
        s.stay_id,
        MAX(c.bun) AS bun_max,
        MIN(c.potassium) AS potassium_min,
        MAX(c.potassium) AS potassium_max,
        MIN(c.sodium) AS sodium_min,
        MAX(c.sodium) AS sodium_max,
        MIN(c.bicarbonate) AS bicarbonate_min
    FROM stays AS s
    INNER JOIN mimiciv_derived.chemistry AS c
        ON c.subject_id = s.subject_id
        AND c.charttime > s.starttime
        AND c.charttime <= s.endtime
    GROUP BY s.stay_id
),
cbc AS (
    SELECT s.stay_id, MIN(c.wbc) AS wbc_min, MAX(c.wbc) AS wbc_max
    FROM stays AS s
    INNER JOIN mimiciv_derived.complete_blood_count AS c
        ON c.subject_id = s.subject_id
        AND c.charttime > s.starttime
        AND c.charttime <= s.endtime
    GROUP BY s.stay_id
),
liver AS (
    SELECT s.stay_id, MAX(e.bilirubin_total) AS bilirubin_max
    FROM stays AS s
    INNER JOIN mimiciv_derived.enzyme AS e
        ON e.subject_id = s.subject_id
        AND e.charttime > s.starttime
        AND e.charttime <= s.endtime
    GROUP BY s.stay_id
),
gcs AS (
    SELECT s.stay_id, MIN(g.gcs) AS mingcs
    FROM stays AS s
    INNER JOIN mimiciv_derived.gcs AS g
        ON g.stay_id = s.stay_id
        AND g.charttime > s.starttime
        AND g.charttime <= s.endtime
    GROUP BY s.stay_id
),
comorbidity AS (
    SELECT
        hadm_id,
        MAX(
            CASE
                WHEN icd_version = 9 AND LEFT(icd_code, 3) BETWEEN '042' AND '044' THEN 1
                WHEN icd_version = 10 AND LEFT(icd_code, 3) BETWEEN 'B20' AND 'B22' THEN 1
                WHEN icd_version = 10 AND LEFT(icd_code, 3) = 'B24' THEN 1
                ELSE 0
            END
        ) AS aids,
        MAX(
            CASE
                WHEN icd_version = 9 AND (
                    LEFT(icd_code, 5) BETWEEN '20000' AND '20238'
                    OR LEFT(icd_code, 5) BETWEEN '20240' AND '20248'
                    OR LEFT(icd_code, 5) BETWEEN '20250' AND '20302'
                    OR LEFT(icd_code, 5) BETWEEN '20310' AND '20312'
                    OR LEFT(icd_code, 5) BETWEEN '20302' AND '20382'
                    OR LEFT(icd_code, 5) BETWEEN '20400' AND '20522'
                    OR LEFT(icd_code, 5) BETWEEN '20580' AND '20702'
                    OR LEFT(icd_code, 5) BETWEEN '20720' AND '20892'
                    OR LEFT(icd_code, 4) IN ('2386', '2733')
                ) THEN 1
                WHEN icd_version = 10 AND LEFT(icd_code, 3) BETWEEN 'C81' AND 'C96' THEN 1
                ELSE 0
            END
        ) AS hem,
        MAX(
            CASE
                WHEN icd_version = 9 AND (
                    LEFT(icd_code, 4) BETWEEN '1960' AND '1991'
                    OR LEFT(icd_code, 5) BETWEEN '20970' AND '20975'
                    OR LEFT(icd_code, 5) IN ('20979', '78951')
                ) THEN 1
                WHEN icd_version = 10 AND (
                    LEFT(icd_code, 3) BETWEEN 'C77' AND 'C79' OR LEFT(icd_code, 4) = 'C800'
                ) THEN 1
                ELSE 0
            END
        ) AS mets
    FROM mimiciv_hosp.diagnoses_icd
    GROUP BY hadm_id
),
first_service AS (
    SELECT
        s.stay_id,
        CASE WHEN LOWER(se.curr_service) LIKE '%surg%' THEN 1 ELSE 0 END AS surgical,
        ROW_NUMBER() OVER (
            PARTITION BY s.stay_id
            ORDER BY se.transfertime ASC NULLS FIRST, se.curr_service ASC NULLS FIRST
        ) AS pick
    FROM stays AS s
    LEFT JOIN mimiciv_hosp.services AS se ON se.hadm_id = s.hadm_id
),
inputs AS (
    SELECT
        s.subject_id,
        s.hadm_id,
        s.stay_id,
        age.age,
        v.heart_rate_min,
        v.heart_rate_max,
        v.sysbp_min,
        v.sysbp_max,
        v.tempc_max,
        pafi.pao2fio2_vent_min,
        urine.urineoutput,
        chem.bun_max,
        cbc.wbc_min,
        cbc.wbc_max,
        chem.potassium_min,
        chem.potassium_max,
        chem.sodium_min,
        chem.sodium_max,
        chem.bicarbonate_min,
        liver.bilirubin_max,
        gcs.mingcs,
        co.aids,
        co.hem,
        co.mets,
        CASE
            WHEN s.admission_type = 'ELECTIVE' AND fs.surgical = 1 THEN 'ScheduledSurgical'
            WHEN s.admission_type != 'ELECTIVE' AND fs.surgical = 1 THEN 'UnscheduledSurgical'
            ELSE 'Medical'
        END AS admissiontype
    FROM stays AS s
    LEFT JOIN mimiciv_derived.age AS age ON age.hadm_id = s.hadm_id
    LEFT JOIN vitals AS v ON v.stay_id = s.stay_id
    LEFT JOIN pafi ON pafi.stay_id = s.stay_id
    LEFT JOIN urine ON urine.stay_id = s.stay_id
    LEFT JOIN chem ON chem.stay_id = s.stay_id
    LEFT JOIN cbc ON cbc.stay_id = s.stay_id
    LEFT JOIN liver ON liver.stay_id = s.stay_id
    LEFT JOIN gcs ON gcs.stay_id = s.stay_id
    LEFT JOIN comorbidity AS co ON co.hadm_id = s.hadm_id
    LEFT JOIN first_service AS fs ON fs.stay_id = s.stay_id AND fs.pick = 1
),
scored AS (
    SELECT
        subject_id,
        hadm_id,
        stay_id,
        CASE
            WHEN age < 40 THEN 0
            WHEN age < 60 THEN 7
            WHEN age < 70 THEN 12
            WHEN age < 75 THEN 15
            WHEN age < 80 THEN 16
            WHEN age >= 80 THEN 18
        END AS age_score,
        CASE
            WHEN heart_rate_min < 40 THEN 11
            WHEN heart_rate_max >= 160 THEN 7
            WHEN heart_rate_max >= 120 THEN 4
            WHEN heart_rate_min < 70 THEN 2
            WHEN heart_rate_max >= 70 AND heart_rate_max < 120
                AND heart_rate_min >= 70 AND heart_rate_min < 120 THEN 0
        END AS hr_score,
        CASE
            WHEN sysbp_min < 70 THEN 13
            WHEN sysbp_min < 100 THEN 5
            WHEN sysbp_max >= 200 THEN 2
            WHEN sysbp_max >= 100 AND sysbp_max < 200
                AND sysbp_min >= 100 AND sysbp_min < 200 THEN 0
        END AS sysbp_score,
        CASE WHEN tempc_max >= 39.0 THEN 3 WHEN tempc_max < 39.0 THEN 0 END AS temp_score,
        CASE
            WHEN pao2fio2_vent_min < 100 THEN 11
            WHEN pao2fio2_vent_min < 200 THEN 9
            WHEN pao2fio2_vent_min >= 200 THEN 6
        END AS pao2fio2_score,
        CASE
            WHEN urineoutput < 500.0 THEN 11
            WHEN urineoutput < 1000.0 THEN 4
            WHEN urineoutput >= 1000.0 THEN 0
        END AS uo_score,
        CASE
            WHEN bun_max < 28.0 THEN 0
            WHEN bun_max < 84.0 THEN 6
            WHEN bun_max >= 84.0 THEN 10
        END AS bun_score,
        CASE
            WHEN wbc_min < 1.0 THEN 12
            WHEN wbc_max >= 20.0 THEN 3
            WHEN wbc_max >= 1.0 AND wbc_max < 20.0 AND wbc_min >= 1.0 AND wbc_min < 20.0 THEN 0
        END AS wbc_score,
        CASE
            WHEN potassium_min < 3.0 THEN 3
            WHEN potassium_max >= 5.0 THEN 3
            WHEN potassium_max >= 3.0 AND potassium_max < 5.0
                AND potassium_min >= 3.0 AND potassium_min < 5.0 THEN 0
        END AS potassium_score,
        CASE
            WHEN sodium_min < 125 THEN 5
            WHEN sodium_max >= 145 THEN 1
            WHEN sodium_max >= 125 AND sodium_max < 145
                AND sodium_min >= 125 AND sodium_min < 145 THEN 0
        END AS sodium_score,
        CASE
            WHEN bicarbonate_min < 15.0 THEN 6
            WHEN bicarbonate_min < 20.0 THEN 3
            WHEN bicarbonate_min >= 20.0 THEN 0
        END AS bicarbonate_score,
        CASE
            WHEN bilirubin_max < 4.0 THEN 0
            WHEN bilirubin_max < 6.0 THEN 4
            WHEN bilirubin_max >= 6.0 THEN 9
        END AS bilirubin_score,
        CASE
            WHEN mingcs < 3 THEN NULL
            WHEN mingcs < 6 THEN 26
            WHEN mingcs < 9 THEN 13
            WHEN mingcs < 11 THEN 7
            WHEN mingcs < 14 THEN 5
            WHEN mingcs >= 14 AND mingcs <= 15 THEN 0
        END AS gcs_score,
        CASE
            WHEN aids = 1 THEN 17
            WHEN hem = 1 THEN 10
            WHEN mets = 1 THEN 9
            ELSE 0
        END AS comorbidity_score,
        CASE
            WHEN admissiontype = 'ScheduledSurgical' THEN 0
            WHEN admissiontype = 'Medical' THEN 6
            WHEN admissiontype = 'UnscheduledSurgical' THEN 8
        END AS admissiontype_score
    FROM inputs
)
SELECT
    subject_id,
    hadm_id,
    stay_id,
    CAST(
        COALESCE(age_score, 0) + COALESCE(hr_score, 0) + COALESCE(sysbp_score, 0)
        + COALESCE(temp_score, 0) + COALESCE(pao2fio2_score, 0) + COALESCE(uo_score, 0)
        + COALESCE(bun_score, 0) + COALESCE(wbc_score, 0) + COALESCE(potassium_score, 0)
        + COALESCE(sodium_score, 0) + COALESCE(bicarbonate_score, 0)
        + COALESCE(bilirubin_score, 0) + COALESCE(gcs_score, 0)
        + COALESCE(comorbidity_score, 0) + COALESCE(admissiontype_score, 0)
        AS INTEGER
    ) AS sapsii,
    CAST(COALESCE(age_score, 0) AS INTEGER) AS age_score,
    CAST(COALESCE(hr_score, 0) AS INTEGER) AS hr_score,
    CAST(COALESCE(sysbp_score, 0) AS INTEGER) AS sysbp_score,
    CAST(COALESCE(temp_score, 0) AS INTEGER) AS temp_score,
    CAST(COALESCE(pao2fio2_score, 0) AS INTEGER) AS pao2fio2_score,
    CAST(COALESCE(uo_score, 0) AS INTEGER) AS uo_score,
    CAST(COALESCE(bun_score, 0) AS INTEGER) AS bun_score,
    CAST(COALESCE(wbc_score, 0) AS INTEGER) AS wbc_score,
    CAST(COALESCE(potassium_score, 0) AS INTEGER) AS potassium_score,
    CAST(COALESCE(sodium_score, 0) AS INTEGER) AS sodium_score,
    CAST(COALESCE(bicarbonate_score, 0) AS INTEGER) AS bicarbonate_score,
    CAST(COALESCE(bilirubin_score, 0) AS INTEGER) AS bilirubin_score,
    CAST(COALESCE(gcs_score, 0) AS INTEGER) AS gcs_score,
    CAST(COALESCE(comorbidity_score, 0) AS INTEGER) AS comorbidity_score,
    CAST(COALESCE(admissiontype_score, 0) AS INTEGER) AS admissiontype_score
FROM scored
