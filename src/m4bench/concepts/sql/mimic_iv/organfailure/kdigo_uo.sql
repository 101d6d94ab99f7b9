-- kdigo_uo: urine output summed over the past 6, 12 and 24 hours and the weight-normalised rates
-- Grain: one row per urine_output row of a stay in icustays (stay_id, charttime)
-- Inputs: mimiciv_icu.icustays, urine_output, weight_durations
-- Convention: windows are by seconds since intime (cast to INTEGER, half to even) and include both ends:
--   [s - 21600, s], [s - 43200, s], [s - 86400, s]. Elapsed time sums each row's hours since the stay's
--   previous urine row (1 h for the first row). Rates (mL/kg/h, DECIMAL(18,3)) are computed only when the
--   elapsed time is in [6, 12) h for 6 h, >= 12 h for 12 h, >= 24 h for 24 h.
-- Convention: weight is the weight_durations interval with starttime <= charttime < endtime.
WITH urine AS (
    SELECT
        ie.stay_id,
        uo.charttime,
        uo.urineoutput,
        CAST(DATE_DIFF('microseconds', ie.intime, uo.charttime) / 1e6 AS INTEGER) AS seconds_since_admit,
        COALESCE(
            DATE_DIFF(
                'microseconds',
                LAG(uo.charttime) OVER (PARTITION BY ie.stay_id ORDER BY uo.charttime),
                uo.charttime
            ) / 3.6e9,
            1
        ) AS hours_since_previous_row
    FROM mimiciv_icu.icustays AS ie
    INNER JOIN mimiciv_derived.urine_output AS uo ON ie.stay_id = uo.stay_id
),
windows AS (
    SELECT
        stay_id,
        charttime,
        SUM(urineoutput) OVER w6 AS urineoutput_6hr,
        SUM(urineoutput) OVER w12 AS urineoutput_12hr,
        SUM(urineoutput) OVER w24 AS urineoutput_24hr,
        SUM(hours_since_previous_row) OVER w6 AS uo_tm_6hr,
        SUM(hours_since_previous_row) OVER w12 AS uo_tm_12hr,
        SUM(hours_since_previous_row) OVER w24 AS uo_tm_24hr
    FROM urine
    WINDOW
        w6 AS (PARTITION BY stay_id ORDER BY seconds_since_admit RANGE BETWEEN 21600 PRECEDING AND CURRENT ROW),
        w12 AS (PARTITION BY stay_id ORDER BY seconds_since_admit RANGE BETWEEN 43200 PRECEDING AND CURRENT ROW),
        w24 AS (PARTITION BY stay_id ORDER BY seconds_since_admit RANGE BETWEEN 86400 PRECEDING AND CURRENT ROW)
)
SELECT
    ur.stay_id,
    ur.charttime,
    wd.weight,
    ur.urineoutput_6hr,
    ur.urineoutput_12hr,
    ur.urineoutput_24hr,
    CASE
        WHEN ur.uo_tm_6hr >= 6 AND ur.uo_tm_6hr < 12
            THEN TRY_CAST(ur.urineoutput_6hr / wd.weight / ur.uo_tm_6hr AS DECIMAL(18, 3))
    END AS uo_rt_6hr,
    CASE
        WHEN ur.uo_tm_12hr >= 12
            THEN TRY_CAST(ur.urineoutput_12hr / wd.weight / ur.uo_tm_12hr AS DECIMAL(18, 3))
    END AS uo_rt_12hr,
    CASE
        WHEN ur.uo_tm_24hr >= 24
            THEN TRY_CAST(ur.urineoutput_24hr / wd.weight / ur.uo_tm_24hr AS DECIMAL(18, 3))
    END AS uo_rt_24hr,
    ur.uo_tm_6hr,
    ur.uo_tm_12hr,
    ur.uo_tm_24hr
FROM windows AS ur
LEFT JOIN mimiciv_derived.weight_durations AS wd
    ON ur.stay_id = wd.stay_id
    AND ur.charttime >= wd.starttime
    AND ur.charttime < wd.endtime
