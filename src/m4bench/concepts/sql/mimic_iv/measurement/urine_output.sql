-- urine_output: net urine output charted per ICU stay and time
-- Grain: one row per (stay_id, charttime) with a urine item charted
-- Inputs: mimiciv_icu.outputevents itemids 226559, 226560, 226561, 226584, 226563, 226564, 226565,
-- 226567, 226557, 226558, 227488, 227489. GU irrigant in (227488) is negated when positive;
-- urineoutput = SUM of the signed values, so it can be zero or negative (kept).
SELECT
    stay_id,
    charttime,
    SUM(CASE WHEN itemid = 227488 AND value > 0 THEN -1 * value ELSE value END) AS urineoutput
FROM mimiciv_icu.outputevents
WHERE itemid IN (
        226559, 226560, 226561, 226584, 226563, 226564,
        226565, 226567, 226557, 226558, 227488, 227489
    )
GROUP BY stay_id, charttime
