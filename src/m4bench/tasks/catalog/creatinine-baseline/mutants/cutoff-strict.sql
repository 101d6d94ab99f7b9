-- KNOWN WRONG (mutant cutoff-strict of reference.sql): the 1.1 mg/dL cut-off is strict: a lowest creatinine of exactly 1.1 uses the MDRD estimate.
-- Baseline serum creatinine per hospital admission of an adult (MIMIC-IV).
-- Reads: mimiciv_derived.age (fractional age at admission), mimiciv_hosp.patients (gender),
-- mimiciv_derived.chemistry (creatinine per specimen, matched by hadm_id over the whole
-- admission), mimiciv_hosp.diagnoses_icd (chronic kidney disease codes).
-- Grain: one row per admission with age >= 18.
-- Baseline: the lowest creatinine when it is <= 1.1 mg/dL or the patient has CKD; otherwise
-- the creatinine that gives an eGFR of 75 in the race-free MDRD equation (mdrd_est).
WITH scr AS (
    SELECT hadm_id, MIN(creatinine) AS scr_min
    FROM mimiciv_derived.chemistry
    WHERE hadm_id IS NOT NULL
    GROUP BY hadm_id
),
ckd AS (
    SELECT
        hadm_id,
        MAX(CASE
            WHEN icd_version = 9 AND SUBSTR(icd_code, 1, 3) = '585' THEN 1
            WHEN icd_version = 10 AND SUBSTR(icd_code, 1, 3) = 'N18' THEN 1
            ELSE 0
        END) AS ckd
    FROM mimiciv_hosp.diagnoses_icd
    GROUP BY hadm_id
),
cohort AS (
    SELECT
        ag.hadm_id,
        pt.gender,
        CAST(ag.age AS DOUBLE) AS age,
        CAST(scr.scr_min AS DOUBLE) AS scr_min,
        CAST(COALESCE(ckd.ckd, 0) AS INTEGER) AS ckd
    FROM mimiciv_derived.age AS ag
    LEFT JOIN mimiciv_hosp.patients AS pt ON pt.subject_id = ag.subject_id
    LEFT JOIN scr ON scr.hadm_id = ag.hadm_id
    LEFT JOIN ckd ON ckd.hadm_id = ag.hadm_id
    WHERE ag.age >= 18
),
estimated AS (
    SELECT
        hadm_id,
        gender,
        age,
        scr_min,
        ckd,
        CAST(CASE
            WHEN gender = 'F'
                THEN POWER(75.0 / 186.0 / POWER(age, -0.203) / 0.742, -1.0 / 1.154)
            ELSE POWER(75.0 / 186.0 / POWER(age, -0.203), -1.0 / 1.154)
        END AS DOUBLE) AS mdrd_est
    FROM cohort
)
SELECT
    hadm_id,
    gender,
    age,
    scr_min,
    ckd,
    mdrd_est,
    CASE
        WHEN scr_min < 1.1 THEN scr_min
        WHEN ckd = 1 THEN scr_min
        ELSE mdrd_est
    END AS scr_baseline
FROM estimated
