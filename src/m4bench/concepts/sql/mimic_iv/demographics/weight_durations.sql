-- weight_durations: intervals over which each charted body weight applies, per ICU stay
-- Grain: one row per ICU stay and weight interval (stay_id, starttime)
-- Inputs: mimiciv_icu.chartevents itemids 226512 (admission weight, kg: 'admit') and 224639
-- (daily weight, kg: 'daily') with valuenum > 0, no upper bound, inner-joined to
-- mimiciv_icu.icustays on stay_id. 226531 (lbs) is not used.
-- The first admission weight starts at intime - 2 h, every other weight at its charttime; an
-- interval ends where the stay's next interval starts (all types ordered by starttime), the last
-- at outtime + 2 h. When the stay's earliest start is later than intime, one more interval
-- [intime - 2 h, earliest start] carries the earliest weight. Weights are not rounded.
-- Ties (same starttime) are ordered by type ('admit' first) then weight, so the earlier of two
-- tied rows gets the zero-length interval.
WITH charted AS (
    SELECT
        ce.stay_id,
        ce.charttime,
        ce.valuenum AS weight,
        CASE WHEN ce.itemid = 226512 THEN 'admit' ELSE 'daily' END AS weight_type,
        ie.intime,
        ie.outtime
    FROM mimiciv_icu.chartevents AS ce
    INNER JOIN mimiciv_icu.icustays AS ie
        ON ce.stay_id = ie.stay_id
    WHERE ce.itemid IN (226512, 224639)
        AND ce.valuenum IS NOT NULL
        AND ce.valuenum > 0
),

numbered AS (
    SELECT
        *,
        ROW_NUMBER() OVER (
            PARTITION BY stay_id, weight_type ORDER BY charttime, weight
        ) AS type_seq
    FROM charted
),

started AS (
    SELECT
        stay_id,
        CASE
            WHEN weight_type = 'admit' AND type_seq = 1 THEN intime - INTERVAL 2 HOUR
            ELSE charttime
        END AS starttime,
        weight,
        weight_type,
        intime,
        outtime
    FROM numbered
),

intervals AS (
    SELECT
        stay_id,
        starttime,
        COALESCE(
            LEAD(starttime) OVER (
                PARTITION BY stay_id ORDER BY starttime, weight_type, weight
            ),
            outtime + INTERVAL 2 HOUR
        ) AS endtime,
        weight,
        weight_type,
        intime,
        ROW_NUMBER() OVER (
            PARTITION BY stay_id ORDER BY starttime, weight_type, weight
        ) AS stay_seq
    FROM started
),

backfill AS (
    SELECT
        stay_id,
        intime - INTERVAL 2 HOUR AS starttime,
        starttime AS endtime,
        weight,
        weight_type
    FROM intervals
    WHERE stay_seq = 1
        AND starttime > intime
)

SELECT stay_id, starttime, endtime, weight, weight_type
FROM intervals
UNION ALL
SELECT stay_id, starttime, endtime, weight, weight_type
FROM backfill
