-- creatinine_baseline: baseline serum creatinine of each adult admission (lowest value, else MDRD estimate)
-- Grain: one row per admission with fractional age >= 18 (hadm_id)
-- Inputs: age, chemistry, mimiciv_hosp.patients, mimiciv_hosp.diagnoses_icd
-- Convention: scr_min is the lowest chemistry creatinine of the admission (any time, labs joined by hadm_id);
--   ckd = 1 for any ICD-9 585* or ICD-10 N18* diagnosis; mdrd_est back-solves the race-free MDRD equation at
--   eGFR 75 (the female factor 0.742 for gender 'F' only). Baseline: scr_min when <= 1.1 or when ckd = 1,
--   else mdrd_est (so a non-CKD admission without creatinine gets mdrd_est and a CKD one NULL).
WITH scr AS (
    SELECT hadm_id, MIN(creatinine) AS scr_min
    FROM mimiciv_derived.chemistry
    WHERE hadm_id IS NOT NULL
    GROUP BY hadm_id
),
ckd AS (
    SELECT
        hadm_id,
        MAX(
            CASE
                WHEN icd_version = 9 AND SUBSTR(icd_code, 1, 3) = '585' THEN 1
                WHEN icd_version = 10 AND SUBSTR(icd_code, 1, 3) = 'N18' THEN 1
                ELSE 0
            END
        ) AS ckd_flag
    FROM mimiciv_hosp.diagnoses_icd
    GROUP BY hadm_id
),
adults AS (
    SELECT
        ag.hadm_id,
        pat.gender,
        ag.age,
        scr.scr_min,
        COALESCE(ckd.ckd_flag, 0) AS ckd,
        CASE
            WHEN pat.gender = 'F' THEN POWER(75.0 / 186.0 / POWER(ag.age, -0.203) / 0.742, -1 / 1.154)
            ELSE POWER(75.0 / 186.0 / POWER(ag.age, -0.203), -1 / 1.154)
        END AS mdrd_est
    FROM mimiciv_derived.age AS ag
    LEFT JOIN mimiciv_hosp.patients AS pat ON ag.subject_id = pat.subject_id
    LEFT JOIN scr ON ag.hadm_id = scr.hadm_id
    LEFT JOIN ckd ON ag.hadm_id = ckd.hadm_id
    WHERE ag.age >= 18
)
SELECT
    hadm_id,
    gender,
    age,
    scr_min,
    ckd,
    mdrd_est,
    CASE
        WHEN scr_min <= 1.1 THEN scr_min
        WHEN ckd = 1 THEN scr_min
        ELSE mdrd_est
    END AS scr_baseline
FROM adults
