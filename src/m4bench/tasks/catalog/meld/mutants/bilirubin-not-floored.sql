-- KNOWN WRONG (mutant bilirubin-not-floored of reference.sql): bilirubin below 1.0 is not raised to 1.0, so its log term turns negative.
-- MELD-Na in the first ICU day (MIMIC-IV).
-- Reads: mimiciv_icu.icustays, mimiciv_derived.first_day_lab (worst creatinine, bilirubin,
-- INR and sodium in [intime - 6 h, intime + 24 h]) and mimiciv_derived.first_day_rrt (any
-- renal replacement charting in the same window). Grain: one row per ICU stay.
-- Missing labs score as normal: an all-missing stay gets MELD 6.0.
WITH inputs AS (
    SELECT
        ie.subject_id,
        ie.hadm_id,
        ie.stay_id,
        lab.creatinine_max,
        lab.bilirubin_total_max,
        lab.inr_max,
        lab.sodium_min,
        rrt.dialysis_present AS rrt
    FROM mimiciv_icu.icustays AS ie
    LEFT JOIN mimiciv_derived.first_day_lab AS lab ON lab.stay_id = ie.stay_id
    LEFT JOIN mimiciv_derived.first_day_rrt AS rrt ON rrt.stay_id = ie.stay_id
),
terms AS (
    SELECT
        subject_id,
        hadm_id,
        stay_id,
        CAST(CASE
            WHEN sodium_min IS NULL THEN 0
            WHEN sodium_min > 137 THEN 0
            WHEN sodium_min < 125 THEN 12
            ELSE 137 - sodium_min
        END AS DOUBLE) AS sodium_score,
        CAST(CASE
            WHEN rrt = 1 OR creatinine_max > 4.0 THEN 0.957 * LN(4.0)
            WHEN creatinine_max < 1 THEN 0
            WHEN creatinine_max IS NULL THEN 0
            ELSE 0.957 * LN(creatinine_max)
        END AS DOUBLE) AS creatinine_score,
        CAST(CASE
            WHEN bilirubin_total_max IS NULL THEN 0
            ELSE 0.378 * LN(bilirubin_total_max)
        END AS DOUBLE) AS bilirubin_score,
        CAST(CASE
            WHEN inr_max IS NULL THEN 0.643
            WHEN inr_max < 1 THEN 0.643
            ELSE 1.120 * LN(inr_max) + 0.643
        END AS DOUBLE) AS inr_score
    FROM inputs
),
initial AS (
    SELECT
        subject_id,
        hadm_id,
        stay_id,
        sodium_score,
        CASE
            WHEN creatinine_score + bilirubin_score + inr_score > 4 THEN 40.0
            ELSE CAST(
                ROUND(CAST(creatinine_score + bilirubin_score + inr_score AS DECIMAL(18, 3)), 1)
                AS DOUBLE
            ) * 10
        END AS meld_initial
    FROM terms
)
SELECT
    subject_id,
    hadm_id,
    stay_id,
    CAST(CASE
        WHEN meld_initial > 11
            THEN meld_initial + 1.32 * sodium_score - 0.033 * meld_initial * sodium_score
        ELSE meld_initial
    END AS DOUBLE) AS meld
FROM initial
