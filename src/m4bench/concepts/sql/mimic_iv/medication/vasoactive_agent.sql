-- vasoactive_agent: the rate of each of the seven vasoactive agents on every elementary time interval of a stay
-- Grain: one row per (stay_id, interval between consecutive distinct start/end times of all seven agents);
--   overlapping rows of one agent multiply the interval (one row per combination), so duplicates exist
-- Inputs: the seven agent tables (dopamine, epinephrine, norepinephrine, phenylephrine, vasopressin,
--   dobutamine, milrinone)
-- Convention: an infusion row contributes to an interval when it covers it entirely
--   (row starttime <= interval start and interval end <= row endtime); intervals with no agent are kept.
WITH all_rows AS (
    SELECT stay_id, starttime, endtime FROM mimiciv_derived.dopamine
    UNION ALL
    SELECT stay_id, starttime, endtime FROM mimiciv_derived.epinephrine
    UNION ALL
    SELECT stay_id, starttime, endtime FROM mimiciv_derived.norepinephrine
    UNION ALL
    SELECT stay_id, starttime, endtime FROM mimiciv_derived.phenylephrine
    UNION ALL
    SELECT stay_id, starttime, endtime FROM mimiciv_derived.vasopressin
    UNION ALL
    SELECT stay_id, starttime, endtime FROM mimiciv_derived.dobutamine
    UNION ALL
    SELECT stay_id, starttime, endtime FROM mimiciv_derived.milrinone
),
time_points AS (
    SELECT stay_id, starttime AS point_time FROM all_rows
    UNION
    SELECT stay_id, endtime AS point_time FROM all_rows
),
intervals AS (
    SELECT
        stay_id,
        point_time AS starttime,
        LEAD(point_time) OVER (PARTITION BY stay_id ORDER BY point_time) AS endtime
    FROM time_points
)
SELECT
    iv.stay_id,
    iv.starttime,
    iv.endtime,
    dop.vaso_rate AS dopamine,
    epi.vaso_rate AS epinephrine,
    nor.vaso_rate AS norepinephrine,
    phe.vaso_rate AS phenylephrine,
    vas.vaso_rate AS vasopressin,
    dob.vaso_rate AS dobutamine,
    mil.vaso_rate AS milrinone
FROM intervals AS iv
LEFT JOIN mimiciv_derived.dopamine AS dop
    ON dop.stay_id = iv.stay_id AND dop.starttime <= iv.starttime AND iv.endtime <= dop.endtime
LEFT JOIN mimiciv_derived.epinephrine AS epi
    ON epi.stay_id = iv.stay_id AND epi.starttime <= iv.starttime AND iv.endtime <= epi.endtime
LEFT JOIN mimiciv_derived.norepinephrine AS nor
    ON nor.stay_id = iv.stay_id AND nor.starttime <= iv.starttime AND iv.endtime <= nor.endtime
LEFT JOIN mimiciv_derived.phenylephrine AS phe
    ON phe.stay_id = iv.stay_id AND phe.starttime <= iv.starttime AND iv.endtime <= phe.endtime
LEFT JOIN mimiciv_derived.vasopressin AS vas
    ON vas.stay_id = iv.stay_id AND vas.starttime <= iv.starttime AND iv.endtime <= vas.endtime
LEFT JOIN mimiciv_derived.dobutamine AS dob
    ON dob.stay_id = iv.stay_id AND dob.starttime <= iv.starttime AND iv.endtime <= dob.endtime
LEFT JOIN mimiciv_derived.milrinone AS mil
    ON mil.stay_id = iv.stay_id AND mil.starttime <= iv.starttime AND iv.endtime <= mil.endtime
WHERE iv.endtime IS NOT NULL
