-- lods: Logistic Organ Dysfunction Score over the first ICU day, with its six organ components
-- Grain: one row per mimiciv_icu.icustays row that joins to its admission and patient
-- Inputs: mimiciv_icu.icustays, mimiciv_hosp.admissions, mimiciv_hosp.patients, mimiciv_icu.chartevents
--   (226732 O2 device), bg, ventilation, first_day_gcs, first_day_vitalsign, first_day_lab,
--   first_day_urine_output
-- Convention: the pulmonary P/F ratio is the lowest pao2fio2ratio of blood gases of any specimen joined by
--   hadm_id in [intime, outtime) taken during an InvasiveVent episode or inside the CPAP window (both
--   inclusive); the CPAP window spans [first - 1 h, last + 4 h] of O2-device values containing 'cpap' or
--   'bipap mask' charted in [intime, intime + 24 h]. Components are NULL when their inputs are missing;
--   lods counts a NULL component as 0.
WITH cpap AS (
    SELECT
        ie.stay_id,
        MIN(ce.charttime) - INTERVAL 1 HOUR AS starttime,
        MAX(ce.charttime) + INTERVAL 4 HOUR AS endtime
    FROM mimiciv_icu.icustays AS ie
    INNER JOIN mimiciv_icu.chartevents AS ce
        ON ie.stay_id = ce.stay_id
        AND ce.charttime >= ie.intime
        AND ce.charttime <= ie.intime + INTERVAL 1 DAY
    WHERE
        ce.itemid = 226732
        AND (LOWER(ce.value) LIKE '%cpap%' OR LOWER(ce.value) LIKE '%bipap mask%')
    GROUP BY ie.stay_id
),
supported_gases AS (
    SELECT
        ie.stay_id,
        bg.pao2fio2ratio
    FROM mimiciv_icu.icustays AS ie
    INNER JOIN mimiciv_derived.bg AS bg
        ON ie.hadm_id = bg.hadm_id
        AND bg.charttime >= ie.intime
        AND bg.charttime < ie.outtime
    LEFT JOIN mimiciv_derived.ventilation AS vd
        ON ie.stay_id = vd.stay_id
        AND bg.charttime >= vd.starttime
        AND bg.charttime <= vd.endtime
        AND vd.ventilation_status = 'InvasiveVent'
    LEFT JOIN cpap AS cp
        ON ie.stay_id = cp.stay_id
        AND bg.charttime >= cp.starttime
        AND bg.charttime <= cp.endtime
    WHERE vd.stay_id IS NOT NULL OR cp.stay_id IS NOT NULL
),
pafi AS (
    SELECT stay_id, MIN(pao2fio2ratio) AS pao2fio2_vent_min
    FROM supported_gases
    GROUP BY stay_id
),
inputs AS (
    SELECT
        ie.subject_id,
        ie.hadm_id,
        ie.stay_id,
        gcs.gcs_min,
        vit.heart_rate_min,
        vit.heart_rate_max,
        vit.sbp_min,
        vit.sbp_max,
        lab.bun_max,
        lab.creatinine_max,
        lab.wbc_min,
        lab.wbc_max,
        lab.platelets_min,
        lab.pt_min,
        lab.pt_max,
        lab.bilirubin_total_max,
        uo.urineoutput,
        pf.pao2fio2_vent_min
    FROM mimiciv_icu.icustays AS ie
    INNER JOIN mimiciv_hosp.admissions AS adm ON ie.hadm_id = adm.hadm_id
    INNER JOIN mimiciv_hosp.patients AS pat ON ie.subject_id = pat.subject_id
    LEFT JOIN pafi AS pf ON ie.stay_id = pf.stay_id
    LEFT JOIN mimiciv_derived.first_day_gcs AS gcs ON ie.stay_id = gcs.stay_id
    LEFT JOIN mimiciv_derived.first_day_vitalsign AS vit ON ie.stay_id = vit.stay_id
    LEFT JOIN mimiciv_derived.first_day_lab AS lab ON ie.stay_id = lab.stay_id
    LEFT JOIN mimiciv_derived.first_day_urine_output AS uo ON ie.stay_id = uo.stay_id
),
components AS (
    SELECT
        subject_id,
        hadm_id,
        stay_id,
        CASE
            WHEN gcs_min IS NULL OR gcs_min < 3 THEN NULL
            WHEN gcs_min <= 5 THEN 5
            WHEN gcs_min <= 8 THEN 3
            WHEN gcs_min <= 13 THEN 1
            ELSE 0
        END AS neurologic,
        CASE
            WHEN heart_rate_max IS NULL AND sbp_min IS NULL THEN NULL
            WHEN heart_rate_min < 30 THEN 5
            WHEN sbp_min < 40 THEN 5
            WHEN sbp_min < 70 THEN 3
            WHEN sbp_max >= 270 THEN 3
            WHEN heart_rate_max >= 140 THEN 1
            WHEN sbp_max >= 240 THEN 1
            WHEN sbp_min < 90 THEN 1
            ELSE 0
        END AS cardiovascular,
        CASE
            WHEN bun_max IS NULL OR urineoutput IS NULL OR creatinine_max IS NULL THEN NULL
            WHEN urineoutput < 500.0 THEN 5
            WHEN bun_max >= 56.0 THEN 5
            WHEN creatinine_max >= 1.60 THEN 3
            WHEN urineoutput < 750.0 THEN 3
            WHEN bun_max >= 28.0 THEN 3
            WHEN urineoutput >= 10000.0 THEN 3
            WHEN creatinine_max >= 1.20 THEN 1
            WHEN bun_max >= 17.0 THEN 1
            WHEN bun_max >= 7.50 THEN 1
            ELSE 0
        END AS renal,
        CASE
            WHEN pao2fio2_vent_min IS NULL THEN 0
            WHEN pao2fio2_vent_min >= 150 THEN 1
            ELSE 3
        END AS pulmonary,
        CASE
            WHEN wbc_max IS NULL AND platelets_min IS NULL THEN NULL
            WHEN wbc_min < 1.0 THEN 3
            WHEN wbc_min < 2.5 THEN 1
            WHEN platelets_min < 50.0 THEN 1
            WHEN wbc_max >= 50.0 THEN 1
            ELSE 0
        END AS hematologic,
        CASE
            WHEN pt_max IS NULL AND bilirubin_total_max IS NULL THEN NULL
            WHEN bilirubin_total_max >= 2.0 THEN 1
            WHEN pt_max > 15.0 THEN 1
            WHEN pt_min < 3.0 THEN 1
            ELSE 0
        END AS hepatic
    FROM inputs
)
SELECT
    subject_id,
    hadm_id,
    stay_id,
    COALESCE(neurologic, 0)
    + COALESCE(cardiovascular, 0)
    + COALESCE(renal, 0)
    + COALESCE(pulmonary, 0)
    + COALESCE(hematologic, 0)
    + COALESCE(hepatic, 0) AS lods,
    neurologic,
    cardiovascular,
    renal,
    pulmonary,
    hematologic,
    hepatic
FROM components
