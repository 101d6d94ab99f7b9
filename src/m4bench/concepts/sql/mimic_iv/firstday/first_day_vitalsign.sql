-- first_day_vitalsign: minimum, maximum and mean of each vital sign over the first ICU day
-- Grain: one row per ICU stay (stay_id); every icustays row, all NULL when no data
-- Inputs: mimiciv_icu.icustays left-joined to mimiciv_derived.vitalsign on stay_id with charttime
-- in [intime - 6 h, intime + 24 h] (both ends included).
SELECT
    ie.subject_id,
    ie.stay_id,
    MIN(vs.heart_rate) AS heart_rate_min,
    MAX(vs.heart_rate) AS heart_rate_max,
    AVG(vs.heart_rate) AS heart_rate_mean,
    MIN(vs.sbp) AS sbp_min,
    MAX(vs.sbp) AS sbp_max,
    AVG(vs.sbp) AS sbp_mean,
    MIN(vs.dbp) AS dbp_min,
    MAX(vs.dbp) AS dbp_max,
    AVG(vs.dbp) AS dbp_mean,
    MIN(vs.mbp) AS mbp_min,
    MAX(vs.mbp) AS mbp_max,
    AVG(vs.mbp) AS mbp_mean,
    MIN(vs.resp_rate) AS resp_rate_min,
    MAX(vs.resp_rate) AS resp_rate_max,
    AVG(vs.resp_rate) AS resp_rate_mean,
    MIN(vs.temperature) AS temperature_min,
    MAX(vs.temperature) AS temperature_max,
    AVG(vs.temperature) AS temperature_mean,
    MIN(vs.spo2) AS spo2_min,
    MAX(vs.spo2) AS spo2_max,
    AVG(vs.spo2) AS spo2_mean,
    MIN(vs.glucose) AS glucose_min,
    MAX(vs.glucose) AS glucose_max,
    AVG(vs.glucose) AS glucose_mean
FROM mimiciv_icu.icustays AS ie
LEFT JOIN mimiciv_derived.vitalsign AS vs
    ON ie.stay_id = vs.stay_id
    AND vs.charttime BETWEEN ie.intime - INTERVAL 6 HOUR AND ie.intime + INTERVAL 24 HOUR
GROUP BY ie.subject_id, ie.stay_id
