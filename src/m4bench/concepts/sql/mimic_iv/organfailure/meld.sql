-- meld: MELD-Na score from first-day labs and dialysis
-- Grain: one row per mimiciv_icu.icustays row
-- Inputs: mimiciv_icu.icustays, first_day_lab, first_day_rrt
-- Convention: creatinine_max, bilirubin_total_max, inr_max and sodium_min of the first day; rrt is
--   first_day_rrt.dialysis_present. creatinine score = 0.957 ln 4 with dialysis or creatinine > 4, 0 below 1,
--   else 0.957 ln(creatinine); bilirubin score 0 below 1, else 0.378 ln(bilirubin); INR score 0.643 below 1
--   or missing, else 1.120 ln(INR) + 0.643. meld_initial = 40 when their sum exceeds 4, else the sum cast to
--   DECIMAL(18,3), rounded to 1 dp, times 10. Sodium score (137 - sodium, clamped to [0, 12], 0 if missing)
--   enters only when meld_initial > 11.
WITH inputs AS (
    SELECT
        ie.subject_id,
        ie.hadm_id,
        ie.stay_id,
        rrt.dialysis_present AS rrt,
        lab.creatinine_max,
        lab.bilirubin_total_max,
        lab.inr_max,
        lab.sodium_min
    FROM mimiciv_icu.icustays AS ie
    LEFT JOIN mimiciv_derived.first_day_lab AS lab ON ie.stay_id = lab.stay_id
    LEFT JOIN mimiciv_derived.first_day_rrt AS rrt ON ie.stay_id = rrt.stay_id
),
component_scores AS (
    SELECT
        *,
        CASE
            WHEN sodium_min IS NULL THEN 0.0
            WHEN sodium_min > 137 THEN 0.0
            WHEN sodium_min < 125 THEN 12.0
            ELSE 137.0 - sodium_min
        END AS sodium_score,
        CASE
            WHEN rrt = 1 OR creatinine_max > 4.0 THEN 0.957 * LN(4)
            WHEN creatinine_max < 1 THEN 0.0
            WHEN creatinine_max IS NULL THEN 0.0
            ELSE 0.957 * LN(creatinine_max)
        END AS creatinine_score,
        CASE
            WHEN bilirubin_total_max < 1 THEN 0.0
            WHEN bilirubin_total_max IS NULL THEN 0.0
            ELSE 0.378 * LN(bilirubin_total_max)
        END AS bilirubin_score,
        CASE
            WHEN inr_max < 1 THEN 0.643
            WHEN inr_max IS NULL THEN 0.643
            ELSE 1.120 * LN(inr_max) + 0.643
        END AS inr_score
    FROM inputs
),
initial AS (
    SELECT
        *,
        CASE
            WHEN creatinine_score + bilirubin_score + inr_score > 4 THEN 40.0
            ELSE CAST(
                ROUND(TRY_CAST(creatinine_score + bilirubin_score + inr_score AS DECIMAL(18, 3)), 1) * 10
                AS DOUBLE
            )
        END AS meld_initial
    FROM component_scores
)
SELECT
    subject_id,
    hadm_id,
    stay_id,
    meld_initial,
    CASE
        WHEN meld_initial > 11
            THEN meld_initial + 1.32 * sodium_score - 0.033 * meld_initial * sodium_score
        ELSE meld_initial
    END AS meld,
    rrt,
    creatinine_max,
    bilirubin_total_max,
    inr_max,
    sodium_min
FROM initial
