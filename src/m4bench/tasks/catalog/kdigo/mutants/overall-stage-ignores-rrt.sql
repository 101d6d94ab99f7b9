-- KNOWN WRONG (mutant overall-stage-ignores-rrt of reference.sql): the overall stage is the worse of creatinine and urine stages; renal replacement therapy does not raise it to 3.
-- KDIGO AKI stage over the first 48 hours of an ICU stay (MIMIC-IV).
-- Reads: mimiciv_icu.icustays, mimiciv_derived.kdigo_stages. Grain: one row per ICU stay.
-- Staged times in [intime, intime + 48 h] (both ends included). Each column is the highest
-- stage seen; any renal replacement therapy in the window gives aki_stage_crrt = 3.
-- A stay with no staged time in the window is stage 0 everywhere.
SELECT
    ie.subject_id,
    ie.hadm_id,
    ie.stay_id,
    CAST(COALESCE(GREATEST(MAX(k.aki_stage_creat), MAX(k.aki_stage_uo)), 0) AS INTEGER)
        AS aki_stage,
    CAST(COALESCE(MAX(k.aki_stage_creat), 0) AS INTEGER) AS aki_stage_creat,
    CAST(COALESCE(MAX(k.aki_stage_uo), 0) AS INTEGER) AS aki_stage_uo,
    CAST(CASE WHEN MAX(k.aki_stage_crrt) > 0 THEN 3 ELSE 0 END AS INTEGER) AS aki_stage_crrt
FROM mimiciv_icu.icustays AS ie
LEFT JOIN mimiciv_derived.kdigo_stages AS k
    ON k.stay_id = ie.stay_id
    AND k.charttime >= ie.intime
    AND k.charttime <= ie.intime + INTERVAL 48 HOUR
GROUP BY ie.subject_id, ie.hadm_id, ie.stay_id
