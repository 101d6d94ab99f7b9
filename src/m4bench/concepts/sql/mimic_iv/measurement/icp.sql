-- icp: intracranial pressure per charting time
-- Grain: one row per (subject_id, stay_id, charttime) with an ICP item charted
-- Inputs: mimiciv_icu.chartevents 220765 and 227989; icp = MAX of the values with 0 < v < 100.
-- A time with only out-of-range values keeps its row with icp NULL.
SELECT
    subject_id,
    stay_id,
    charttime,
    MAX(CASE WHEN valuenum > 0 AND valuenum < 100 THEN valuenum END) AS icp
FROM mimiciv_icu.chartevents
WHERE itemid IN (220765, 227989)
GROUP BY subject_id, stay_id, charttime
