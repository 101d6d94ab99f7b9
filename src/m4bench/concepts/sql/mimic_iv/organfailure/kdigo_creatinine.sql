-- kdigo_creatinine: serum creatinine around each ICU stay with its lowest value in the past 48 h and 7 days
-- Grain: one row per (stay_id, charttime) of creatinine; a stay without any gets one row with NULL
--   charttime and creat
-- Inputs: mimiciv_icu.icustays, mimiciv_hosp.labevents (itemid 50912)
-- Convention: labs of the same subject with a non-null value <= 150 (0 is kept) charted in [intime - 7 days,
--   outtime]; creat is the average of the values at one charttime. The look-backs cover [t - 48 h, t) and
--   [t - 7 days, t) over the stay's own rows only (strictly earlier times).
WITH creat_points AS (
    SELECT
        ie.hadm_id,
        ie.stay_id,
        le.charttime,
        AVG(le.valuenum) AS creat
    FROM mimiciv_icu.icustays AS ie
    LEFT JOIN mimiciv_hosp.labevents AS le
        ON ie.subject_id = le.subject_id
        AND le.itemid = 50912
        AND le.valuenum IS NOT NULL
        AND le.valuenum <= 150
        AND le.charttime >= ie.intime - INTERVAL 7 DAY
        AND le.charttime <= ie.outtime
    GROUP BY ie.hadm_id, ie.stay_id, le.charttime
)
SELECT
    hadm_id,
    stay_id,
    charttime,
    creat,
    MIN(creat) OVER (
        PARTITION BY stay_id ORDER BY charttime
        RANGE BETWEEN INTERVAL 48 HOUR PRECEDING AND CURRENT ROW EXCLUDE CURRENT ROW
    ) AS creat_low_past_48hr,
    MIN(creat) OVER (
        PARTITION BY stay_id ORDER BY charttime
        RANGE BETWEEN INTERVAL 7 DAY PRECEDING AND CURRENT ROW EXCLUDE CURRENT ROW
    ) AS creat_low_past_7day
FROM creat_points
