-- height: charted body height in centimetres
-- Grain: one row per charted height (cm and inch rows of one subject and time paired)
-- Inputs: mimiciv_icu.chartevents 226707 (inches, x 2.54) and 226730 (cm), valuenum non-null,
-- each cast to DECIMAL(18,3) and rounded to 2 decimals; the two are full-outer-joined on
-- (subject_id, charttime); height = the cm value if present else the converted inch value; kept
-- when 120 < height < 230.
-- Deviation: subject_id, stay_id and charttime are taken from whichever side is present. The
-- reference takes them from the cm side only (a typo), so inch-only heights lose their ids and
-- time and never reach first_day_height; no task reference reads height or first_day_height.
WITH inches AS (
    SELECT
        subject_id,
        stay_id,
        charttime,
        ROUND(TRY_CAST(valuenum * 2.54 AS DECIMAL(18, 3)), 2) AS height
    FROM mimiciv_icu.chartevents
    WHERE itemid = 226707
        AND valuenum IS NOT NULL
),

centimetres AS (
    SELECT
        subject_id,
        stay_id,
        charttime,
        ROUND(TRY_CAST(valuenum AS DECIMAL(18, 3)), 2) AS height
    FROM mimiciv_icu.chartevents
    WHERE itemid = 226730
        AND valuenum IS NOT NULL
),

paired AS (
    SELECT
        COALESCE(cm.subject_id, inch.subject_id) AS subject_id,
        COALESCE(cm.stay_id, inch.stay_id) AS stay_id,
        COALESCE(cm.charttime, inch.charttime) AS charttime,
        COALESCE(cm.height, inch.height) AS height
    FROM centimetres AS cm
    FULL OUTER JOIN inches AS inch
        ON cm.subject_id = inch.subject_id
        AND cm.charttime = inch.charttime
)

SELECT subject_id, stay_id, charttime, height
FROM paired
WHERE height > 120
    AND height < 230
