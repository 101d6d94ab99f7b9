-- urine_output_rate: urine output over the trailing 6, 12 and 24 h and the weight-based rates
-- Grain: one row per urine_output row of a stay with a heart-rate anchor (stay_id, charttime)
-- Inputs: mimiciv_icu.icustays, mimiciv_icu.chartevents 220045, mimiciv_derived.urine_output,
-- mimiciv_derived.weight_durations.
-- Anchor: first/last heart rate (any value) charted strictly within (intime - 1 month, outtime +
-- 1 month), calendar months; stays without one are dropped. tm_since_last_uo = minutes since the
-- stay's previous urine row (the first row: since the first heart rate, negative if earlier).
-- For a urine row at T, rows S in [T - 23 h, T] are summed with d = fractional hours T - S:
-- d <= 5 into the 6 h sums, d <= 11 into the 12 h sums, all into the 24 h sums; uo_tm_* are the
-- summed minutes / 60. weight: weight_durations interval with starttime < T <= endtime, weight > 0.
-- uo_mlkghr_X = urineoutput_X / weight / uo_tm_X when the unrounded uo_tm_X >= X hours, cast to
-- DECIMAL(18,3); uo_tm_* are output cast to DECIMAL(18,3) and rounded to 2 decimals.
WITH anchor AS (
    SELECT
        ie.stay_id,
        MIN(ce.charttime) AS intime_hr,
        MAX(ce.charttime) AS outtime_hr
    FROM mimiciv_icu.icustays AS ie
    INNER JOIN mimiciv_icu.chartevents AS ce
        ON ie.stay_id = ce.stay_id
        AND ce.itemid = 220045
        AND ce.charttime > ie.intime - INTERVAL 1 MONTH
        AND ce.charttime < ie.outtime + INTERVAL 1 MONTH
    GROUP BY ie.stay_id
),

timed AS (
    SELECT
        uo.stay_id,
        uo.charttime,
        uo.urineoutput,
        DATE_DIFF(
            'microsecond',
            COALESCE(
                LAG(uo.charttime) OVER (PARTITION BY uo.stay_id ORDER BY uo.charttime),
                anchor.intime_hr
            ),
            uo.charttime
        ) / 60000000.0 AS tm_since_last_uo
    FROM mimiciv_derived.urine_output AS uo
    INNER JOIN anchor
        ON uo.stay_id = anchor.stay_id
),

windowed AS (
    SELECT
        cur.stay_id,
        cur.charttime,
        cur.urineoutput AS uo,
        DATE_DIFF('microsecond', prior.charttime, cur.charttime) / 3600000000.0 AS hours_back,
        prior.urineoutput AS prior_uo,
        prior.tm_since_last_uo AS prior_minutes
    FROM timed AS cur
    INNER JOIN timed AS prior
        ON cur.stay_id = prior.stay_id
        AND prior.charttime BETWEEN cur.charttime - INTERVAL 23 HOUR AND cur.charttime
),

summed AS (
    SELECT
        stay_id,
        charttime,
        MAX(uo) AS uo,
        SUM(CASE WHEN hours_back <= 5 THEN prior_uo END) AS urineoutput_6hr,
        SUM(CASE WHEN hours_back <= 11 THEN prior_uo END) AS urineoutput_12hr,
        SUM(prior_uo) AS urineoutput_24hr,
        SUM(CASE WHEN hours_back <= 5 THEN prior_minutes END) / 60 AS uo_tm_6hr,
        SUM(CASE WHEN hours_back <= 11 THEN prior_minutes END) / 60 AS uo_tm_12hr,
        SUM(prior_minutes) / 60 AS uo_tm_24hr
    FROM windowed
    GROUP BY stay_id, charttime
),

weighted AS (
    SELECT
        summed.*,
        wd.weight
    FROM summed
    LEFT JOIN mimiciv_derived.weight_durations AS wd
        ON summed.stay_id = wd.stay_id
        AND summed.charttime > wd.starttime
        AND summed.charttime <= wd.endtime
        AND wd.weight > 0
)

SELECT
    stay_id,
    charttime,
    weight,
    uo,
    urineoutput_6hr,
    urineoutput_12hr,
    urineoutput_24hr,
    ROUND(TRY_CAST(
        CASE WHEN uo_tm_6hr >= 6 THEN urineoutput_6hr / weight / uo_tm_6hr END AS DECIMAL(18, 3)
    ), 4) AS uo_mlkghr_6hr,
    ROUND(TRY_CAST(
        CASE WHEN uo_tm_12hr >= 12 THEN urineoutput_12hr / weight / uo_tm_12hr END
        AS DECIMAL(18, 3)
    ), 4) AS uo_mlkghr_12hr,
    ROUND(TRY_CAST(
        CASE WHEN uo_tm_24hr >= 24 THEN urineoutput_24hr / weight / uo_tm_24hr END
        AS DECIMAL(18, 3)
    ), 4) AS uo_mlkghr_24hr,
    ROUND(TRY_CAST(uo_tm_6hr AS DECIMAL(18, 3)), 2) AS uo_tm_6hr,
    ROUND(TRY_CAST(uo_tm_12hr AS DECIMAL(18, 3)), 2) AS uo_tm_12hr,
    ROUND(TRY_CAST(uo_tm_24hr AS DECIMAL(18, 3)), 2) AS uo_tm_24hr
FROM weighted
