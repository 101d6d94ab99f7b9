-- first_day_rrt: whether renal replacement therapy was present or active on the first ICU day
-- Grain: one row per ICU stay (stay_id); every icustays row, all NULL when no data
-- Inputs: mimiciv_icu.icustays left-joined to mimiciv_derived.rrt on stay_id with charttime in
-- [intime - 6 h, intime + 24 h]. dialysis_present and dialysis_active = MAX; dialysis_type = the
-- distinct non-NULL types joined with ', ' in alphabetical order (the reference leaves the order
-- open).
SELECT
    ie.subject_id,
    ie.stay_id,
    MAX(rrt.dialysis_present) AS dialysis_present,
    MAX(rrt.dialysis_active) AS dialysis_active,
    STRING_AGG(DISTINCT rrt.dialysis_type, ', ' ORDER BY rrt.dialysis_type) AS dialysis_type
FROM mimiciv_icu.icustays AS ie
LEFT JOIN mimiciv_derived.rrt AS rrt
    ON ie.stay_id = rrt.stay_id
    AND rrt.charttime BETWEEN ie.intime - INTERVAL 6 HOUR AND ie.intime + INTERVAL 24 HOUR
GROUP BY ie.subject_id, ie.stay_id
