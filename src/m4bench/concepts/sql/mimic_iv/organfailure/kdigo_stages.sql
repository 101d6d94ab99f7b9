-- kdigo_stages: KDIGO acute kidney injury stage by creatinine, urine output and CRRT at each measurement time
-- Grain: one row per distinct (stay_id, charttime) of kdigo_creatinine, kdigo_uo and crrt (with crrt_mode);
--   every icustays row appears at least once (a stay without creatinine keeps a NULL-charttime row, stage 0)
-- Inputs: mimiciv_icu.icustays, kdigo_creatinine, kdigo_uo, crrt
-- Convention: creatinine stage (first match): 3 if creat >= 3 x 7-day low; 3 if creat >= 4 and (48 h low
--   <= 3.7 or creat >= 1.5 x 7-day low); 2 if >= 2 x 7-day low; 1 if >= 48 h low + 0.3; 1 if >= 1.5 x 7-day
--   low; else 0. Urine stage uses the 3-dp rates: NULL without a 6 h rate; 0 up to intime + 6 h; 3 if 24 h
--   rate < 0.3 or 12 h rate = 0; 2 if 12 h rate < 0.5; 1 if 6 h rate < 0.5; else 0. CRRT stage is 3.
-- Convention: aki_stage_smoothed is the highest stage of the same subject within the 6 h before, compared on
--   seconds since each row's own stay intime.
WITH creat_stage AS (
    SELECT
        stay_id,
        charttime,
        creat_low_past_7day,
        creat_low_past_48hr,
        creat,
        CASE
            WHEN creat >= creat_low_past_7day * 3.0 THEN 3
            WHEN creat >= 4 AND (creat_low_past_48hr <= 3.7 OR creat >= 1.5 * creat_low_past_7day) THEN 3
            WHEN creat >= creat_low_past_7day * 2.0 THEN 2
            WHEN creat >= creat_low_past_48hr + 0.3 THEN 1
            WHEN creat >= creat_low_past_7day * 1.5 THEN 1
            ELSE 0
        END AS aki_stage_creat
    FROM mimiciv_derived.kdigo_creatinine
),
uo_stage AS (
    SELECT
        uo.stay_id,
        uo.charttime,
        uo.uo_rt_6hr,
        uo.uo_rt_12hr,
        uo.uo_rt_24hr,
        CASE
            WHEN uo.uo_rt_6hr IS NULL THEN NULL
            WHEN uo.charttime <= ie.intime + INTERVAL 6 HOUR THEN 0
            WHEN uo.uo_tm_24hr >= 24 AND uo.uo_rt_24hr < 0.3 THEN 3
            WHEN uo.uo_tm_12hr >= 12 AND uo.uo_rt_12hr = 0 THEN 3
            WHEN uo.uo_tm_12hr >= 12 AND uo.uo_rt_12hr < 0.5 THEN 2
            WHEN uo.uo_tm_6hr >= 6 AND uo.uo_rt_6hr < 0.5 THEN 1
            ELSE 0
        END AS aki_stage_uo
    FROM mimiciv_derived.kdigo_uo AS uo
    INNER JOIN mimiciv_icu.icustays AS ie ON uo.stay_id = ie.stay_id
),
crrt_stage AS (
    SELECT stay_id, charttime, 3 AS aki_stage_crrt
    FROM mimiciv_derived.crrt
    WHERE crrt_mode IS NOT NULL
),
stage_times AS (
    SELECT stay_id, charttime FROM creat_stage
    UNION
    SELECT stay_id, charttime FROM uo_stage
    UNION
    SELECT stay_id, charttime FROM crrt_stage
),
combined AS (
    SELECT
        ie.subject_id,
        ie.hadm_id,
        ie.stay_id,
        ie.intime,
        tm.charttime,
        cr.creat_low_past_7day,
        cr.creat_low_past_48hr,
        cr.creat,
        cr.aki_stage_creat,
        uo.uo_rt_6hr,
        uo.uo_rt_12hr,
        uo.uo_rt_24hr,
        uo.aki_stage_uo,
        rr.aki_stage_crrt,
        GREATEST(
            COALESCE(cr.aki_stage_creat, 0), COALESCE(uo.aki_stage_uo, 0), COALESCE(rr.aki_stage_crrt, 0)
        ) AS aki_stage
    FROM mimiciv_icu.icustays AS ie
    LEFT JOIN stage_times AS tm ON ie.stay_id = tm.stay_id
    LEFT JOIN creat_stage AS cr ON tm.stay_id = cr.stay_id AND tm.charttime = cr.charttime
    LEFT JOIN uo_stage AS uo ON tm.stay_id = uo.stay_id AND tm.charttime = uo.charttime
    LEFT JOIN crrt_stage AS rr ON tm.stay_id = rr.stay_id AND tm.charttime = rr.charttime
)
SELECT
    subject_id,
    hadm_id,
    stay_id,
    charttime,
    creat_low_past_7day,
    creat_low_past_48hr,
    creat,
    aki_stage_creat,
    uo_rt_6hr,
    uo_rt_12hr,
    uo_rt_24hr,
    aki_stage_uo,
    aki_stage_crrt,
    aki_stage,
    MAX(aki_stage) OVER (
        PARTITION BY subject_id
        ORDER BY DATE_DIFF('microseconds', intime, charttime) / 1e6
        RANGE BETWEEN 21600 PRECEDING AND CURRENT ROW
    ) AS aki_stage_smoothed
FROM combined
