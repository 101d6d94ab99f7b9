-- KNOWN WRONG (mutant window-6h-spans-7h of reference.sql): the 6-hour window includes chartings 6 hours back (<= 6 h, a 7-hour span).
-- Rolling urine output and weight-normalised rates at each urine charting (MIMIC-IV).
-- Reads: mimiciv_icu.icustays, mimiciv_icu.chartevents (heart-rate charting anchors the
-- stay's monitored time), mimiciv_derived.urine_output (one signed volume per stay and
-- charttime), mimiciv_derived.weight_durations (weight intervals).
-- Grain: one row per (stay_id, charttime) of urine output, for stays with heart-rate charting
-- strictly within one calendar month of the ICU stay.
-- Windows: an earlier charting S counts for a row at T when (T - S) <= 5 h (6 h window),
-- <= 11 h (12 h), <= 23 h (24 h), in fractional hours, T itself included. Elapsed time is the
-- sum of the minutes since the previous urine charting (the first one: since the first heart
-- rate). A rate is given only when the unrounded elapsed time reaches 6 / 12 / 24 h and a
-- positive weight covers T (start < T <= end); rates keep 3 decimals, elapsed hours 2.
-- Tie-break (recorded): should two weight intervals cover T, the later-starting, then heavier wins.
WITH anchor AS (
    SELECT ie.stay_id, MIN(ce.charttime) AS intime_hr
    FROM mimiciv_icu.icustays AS ie
    INNER JOIN mimiciv_icu.chartevents AS ce
        ON ce.stay_id = ie.stay_id
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
                a.intime_hr
            ),
            uo.charttime
        ) / 6e7 AS tm_since_last_uo
    FROM mimiciv_derived.urine_output AS uo
    INNER JOIN anchor AS a ON a.stay_id = uo.stay_id
),
rolled AS (
    SELECT
        cur.stay_id,
        cur.charttime,
        cur.urineoutput AS uo,
        SUM(CASE WHEN DATE_DIFF('microsecond', prev.charttime, cur.charttime) / 3.6e9 <= 6
            THEN prev.urineoutput END) AS urineoutput_6hr,
        SUM(CASE WHEN DATE_DIFF('microsecond', prev.charttime, cur.charttime) / 3.6e9 <= 11
            THEN prev.urineoutput END) AS urineoutput_12hr,
        SUM(prev.urineoutput) AS urineoutput_24hr,
        SUM(CASE WHEN DATE_DIFF('microsecond', prev.charttime, cur.charttime) / 3.6e9 <= 6
            THEN prev.tm_since_last_uo END) / 60 AS uo_tm_6hr,
        SUM(CASE WHEN DATE_DIFF('microsecond', prev.charttime, cur.charttime) / 3.6e9 <= 11
            THEN prev.tm_since_last_uo END) / 60 AS uo_tm_12hr,
        SUM(prev.tm_since_last_uo) / 60 AS uo_tm_24hr
    FROM timed AS cur
    INNER JOIN timed AS prev
        ON prev.stay_id = cur.stay_id
        AND prev.charttime >= cur.charttime - INTERVAL 23 HOUR
        AND prev.charttime <= cur.charttime
    GROUP BY cur.stay_id, cur.charttime, cur.urineoutput
),
weighted AS (
    SELECT
        r.*,
        wd.weight,
        ROW_NUMBER() OVER (
            PARTITION BY r.stay_id, r.charttime
            ORDER BY wd.starttime DESC NULLS LAST, wd.weight DESC NULLS LAST
        ) AS pick
    FROM rolled AS r
    LEFT JOIN mimiciv_derived.weight_durations AS wd
        ON wd.stay_id = r.stay_id
        AND wd.starttime < r.charttime
        AND wd.endtime >= r.charttime
        AND wd.weight > 0
)
SELECT
    stay_id,
    charttime,
    CAST(weight AS DOUBLE) AS weight,
    CAST(uo AS DOUBLE) AS uo,
    CAST(urineoutput_6hr AS DOUBLE) AS urineoutput_6hr,
    CAST(urineoutput_12hr AS DOUBLE) AS urineoutput_12hr,
    CAST(urineoutput_24hr AS DOUBLE) AS urineoutput_24hr,
    CASE WHEN uo_tm_6hr >= 6
        THEN ROUND(TRY_CAST(urineoutput_6hr / weight / uo_tm_6hr AS DECIMAL(18, 3)), 4)
    END AS uo_mlkghr_6hr,
    CASE WHEN uo_tm_12hr >= 12
        THEN ROUND(TRY_CAST(urineoutput_12hr / weight / uo_tm_12hr AS DECIMAL(18, 3)), 4)
    END AS uo_mlkghr_12hr,
    CASE WHEN uo_tm_24hr >= 24
        THEN ROUND(TRY_CAST(urineoutput_24hr / weight / uo_tm_24hr AS DECIMAL(18, 3)), 4)
    END AS uo_mlkghr_24hr,
    ROUND(TRY_CAST(uo_tm_6hr AS DECIMAL(18, 3)), 2) AS uo_tm_6hr,
    ROUND(TRY_CAST(uo_tm_12hr AS DECIMAL(18, 3)), 2) AS uo_tm_12hr,
    ROUND(TRY_CAST(uo_tm_24hr AS DECIMAL(18, 3)), 2) AS uo_tm_24hr
FROM weighted
WHERE pick = 1
