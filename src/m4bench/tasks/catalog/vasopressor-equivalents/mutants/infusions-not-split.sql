-- KNOWN WRONG (mutant infusions-not-split of reference.sql): each agent's own infusion rows are used as intervals instead of the split vasoactive timeline.
-- Norepinephrine-equivalent dose per vasoactive interval (MIMIC-IV).
-- Reads: mimiciv_derived.vasoactive_agent (one row per elementary interval between the start
-- and end times of all vasoactive infusions of a stay, with the rate of each agent running
-- across it). Grain: one row per (stay_id, starttime) interval in which norepinephrine,
-- epinephrine, phenylephrine, dopamine or vasopressin runs.
-- NED = norepinephrine + epinephrine + phenylephrine / 10 + dopamine / 100
--       + vasopressin (units/h) * 2.5 / 60, a missing agent contributing 0, kept to 3 decimals.
-- Overlapping infusions of one agent duplicate an interval; the interval keeps the largest NED.
WITH vasoactive_agent AS (
    SELECT stay_id, starttime, endtime, vaso_rate AS norepinephrine, NULL AS epinephrine,
        NULL AS phenylephrine, NULL AS dopamine, NULL AS vasopressin
    FROM mimiciv_derived.norepinephrine
    UNION ALL
    SELECT stay_id, starttime, endtime, NULL, vaso_rate, NULL, NULL, NULL
    FROM mimiciv_derived.epinephrine
    UNION ALL
    SELECT stay_id, starttime, endtime, NULL, NULL, vaso_rate, NULL, NULL
    FROM mimiciv_derived.phenylephrine
    UNION ALL
    SELECT stay_id, starttime, endtime, NULL, NULL, NULL, vaso_rate, NULL
    FROM mimiciv_derived.dopamine
    UNION ALL
    SELECT stay_id, starttime, endtime, NULL, NULL, NULL, NULL, vaso_rate
    FROM mimiciv_derived.vasopressin
)
SELECT
    stay_id,
    starttime,
    endtime,
    MAX(ROUND(CAST(
        COALESCE(norepinephrine, 0)
        + COALESCE(epinephrine, 0)
        + COALESCE(phenylephrine, 0) / 10
        + COALESCE(dopamine, 0) / 100
        + COALESCE(vasopressin, 0) * 2.5 / 60
        AS DECIMAL(18, 3)), 4)) AS norepinephrine_equivalent_dose
FROM vasoactive_agent
WHERE norepinephrine IS NOT NULL
    OR epinephrine IS NOT NULL
    OR phenylephrine IS NOT NULL
    OR dopamine IS NOT NULL
    OR vasopressin IS NOT NULL
GROUP BY stay_id, starttime, endtime
