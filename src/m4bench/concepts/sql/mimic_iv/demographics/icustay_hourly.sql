-- icustay_hourly: an hourly time grid for each ICU stay, anchored on the first heart rate
-- Grain: one row per ICU stay and hour (stay_id, hr)
-- Inputs: mimiciv_derived.icustay_times. base = intime_hr when it falls on a whole hour, else
-- the next whole hour; hr runs over every integer from -24 to CEIL(fractional hours from
-- intime_hr to outtime_hr), inclusive; endtime = base + hr hours.
-- Stays without a heart rate (NULL intime_hr) have no rows.
WITH anchored AS (
    SELECT
        stay_id,
        CASE
            WHEN DATE_TRUNC('hour', intime_hr) = intime_hr THEN intime_hr
            ELSE DATE_TRUNC('hour', intime_hr) + INTERVAL 1 HOUR
        END AS base,
        CAST(
            CEIL(DATE_DIFF('microsecond', intime_hr, outtime_hr) / 3600000000.0) AS BIGINT
        ) AS last_hr
    FROM mimiciv_derived.icustay_times
    WHERE intime_hr IS NOT NULL
)

SELECT
    anchored.stay_id,
    CAST(grid.hr AS BIGINT) AS hr,
    anchored.base + TO_HOURS(CAST(grid.hr AS BIGINT)) AS endtime
FROM anchored
CROSS JOIN LATERAL GENERATE_SERIES(-24, anchored.last_hr) AS grid (hr)
