-- gcs: Glasgow Coma Scale per charting time, with the reference's one-step carry-forward
-- Grain: one row per (subject_id, stay_id, charttime) with a GCS item charted
-- Inputs: mimiciv_icu.chartevents 220739 (eyes), 223900 (verbal), 223901 (motor), no value
-- filter. Per time: each component = MAX valuenum; verbal 'No Response-ETT' counts as 0 and sets
-- gcs_unable = 1. "Previous" = the stay's immediately preceding GCS time only if strictly less than
-- 6 h earlier, contributing its own charted values. gcs (first match): current verbal 0 -> 15;
-- current verbal NULL and previous verbal 0 -> 15; previous verbal 0 -> current components with
-- defaults (motor 6, verbal 5, eyes 4); else each component current, else previous, else default.
-- Output components = COALESCE(current, previous), gcs_unable = current ETT flag only.
WITH charted AS (
    SELECT
        subject_id,
        stay_id,
        charttime,
        MAX(CASE WHEN itemid = 223901 THEN valuenum END) AS motor,
        MAX(
            CASE
                WHEN itemid = 223900 AND value = 'No Response-ETT' THEN 0
                WHEN itemid = 223900 THEN valuenum
            END
        ) AS verbal,
        MAX(CASE WHEN itemid = 220739 THEN valuenum END) AS eyes,
        MAX(CASE WHEN itemid = 223900 AND value = 'No Response-ETT' THEN 1 ELSE 0 END)
            AS endotrachflag
    FROM mimiciv_icu.chartevents
    WHERE itemid IN (220739, 223900, 223901)
    GROUP BY subject_id, stay_id, charttime
),

numbered AS (
    SELECT
        *,
        ROW_NUMBER() OVER (PARTITION BY stay_id ORDER BY charttime, subject_id) AS seq
    FROM charted
),

paired AS (
    SELECT
        cur.subject_id,
        cur.stay_id,
        cur.charttime,
        cur.motor,
        cur.verbal,
        cur.eyes,
        cur.endotrachflag,
        prev.motor AS prev_motor,
        prev.verbal AS prev_verbal,
        prev.eyes AS prev_eyes
    FROM numbered AS cur
    LEFT JOIN numbered AS prev
        ON cur.stay_id = prev.stay_id
        AND prev.seq = cur.seq - 1
        AND prev.charttime > cur.charttime - INTERVAL 6 HOUR
)

SELECT
    subject_id,
    stay_id,
    charttime,
    CASE
        WHEN verbal = 0 THEN 15
        WHEN verbal IS NULL AND prev_verbal = 0 THEN 15
        WHEN prev_verbal = 0
            THEN COALESCE(motor, 6) + COALESCE(verbal, 5) + COALESCE(eyes, 4)
        ELSE COALESCE(motor, prev_motor, 6)
            + COALESCE(verbal, prev_verbal, 5)
            + COALESCE(eyes, prev_eyes, 4)
    END AS gcs,
    COALESCE(motor, prev_motor) AS gcs_motor,
    COALESCE(verbal, prev_verbal) AS gcs_verbal,
    COALESCE(eyes, prev_eyes) AS gcs_eyes,
    CAST(endotrachflag AS INTEGER) AS gcs_unable
FROM paired
