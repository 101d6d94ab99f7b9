-- first_day_urine_output: total urine output over the first 24 h of the ICU stay
-- Grain: one row per ICU stay (stay_id); every icustays row, NULL when no urine was charted
-- Inputs: mimiciv_icu.icustays left-joined to mimiciv_derived.urine_output on stay_id with
-- charttime in [intime, intime + 24 h] (no pre-ICU part); urineoutput = SUM.
SELECT
    ie.subject_id,
    ie.stay_id,
    SUM(uo.urineoutput) AS urineoutput
FROM mimiciv_icu.icustays AS ie
LEFT JOIN mimiciv_derived.urine_output AS uo
    ON ie.stay_id = uo.stay_id
    AND uo.charttime BETWEEN ie.intime AND ie.intime + INTERVAL 24 HOUR
GROUP BY ie.subject_id, ie.stay_id
