-- icustay_times: first and last heart-rate charting time of each ICU stay
-- Grain: one row per ICU stay (stay_id); every icustays row, NULL times when no heart rate
-- Inputs: mimiciv_icu.icustays left-joined to mimiciv_icu.chartevents itemid 220045 (heart rate)
-- of the same stay_id, any value, no time window.
SELECT
    ie.subject_id,
    ie.hadm_id,
    ie.stay_id,
    MIN(ce.charttime) AS intime_hr,
    MAX(ce.charttime) AS outtime_hr
FROM mimiciv_icu.icustays AS ie
LEFT JOIN mimiciv_icu.chartevents AS ce
    ON ie.stay_id = ce.stay_id
    AND ce.itemid = 220045
GROUP BY ie.subject_id, ie.hadm_id, ie.stay_id
