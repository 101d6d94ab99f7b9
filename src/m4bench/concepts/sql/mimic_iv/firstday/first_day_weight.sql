-- first_day_weight: admission, mean, minimum and maximum weight over the first ICU day
-- Grain: one row per ICU stay (stay_id); every icustays row, all NULL when no weight
-- Inputs: mimiciv_icu.icustays left-joined to mimiciv_derived.weight_durations on stay_id for
-- intervals with starttime <= intime + 24 h (any earlier start). One term per interval, so the
-- back-filled first interval counts the first weight twice (kept quirk of the reference).
-- weight_admit = AVG of admit-type weights; weight = AVG; weight_min, weight_max.
SELECT
    ie.subject_id,
    ie.stay_id,
    AVG(CASE WHEN wd.weight_type = 'admit' THEN wd.weight END) AS weight_admit,
    AVG(wd.weight) AS weight,
    MIN(wd.weight) AS weight_min,
    MAX(wd.weight) AS weight_max
FROM mimiciv_icu.icustays AS ie
LEFT JOIN mimiciv_derived.weight_durations AS wd
    ON ie.stay_id = wd.stay_id
    AND wd.starttime <= ie.intime + INTERVAL 24 HOUR
GROUP BY ie.subject_id, ie.stay_id
