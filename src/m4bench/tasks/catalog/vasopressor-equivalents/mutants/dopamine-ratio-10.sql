-- KNOWN WRONG (mutant dopamine-ratio-10 of reference.sql): dopamine converted at 1:10 like phenylephrine instead of 1:100.
-- Norepinephrine-equivalent dose per vasoactive interval (MIMIC-IV).
-- Reads: mimiciv_derived.vasoactive_agent (one row per elementary interval between the start
-- and end times of all vasoactive infusions of a stay, with the rate of each agent running
-- across it). Grain: one row per (stay_id, starttime) interval in which norepinephrine,
-- epinephrine, phenylephrine, dopamine or vasopressin runs.
-- NED = norepinephrine + epinephrine + phenylephrine / 10 + dopamine / 100
--       + vasopressin (units/h) * 2.5 / 60, a missing agent contributing 0, kept to 3 decimals.
-- Overlapping infusions of one agent duplicate an interval; the interval keeps the largest NED.
SELECT
    stay_id,
    starttime,
    endtime,
    MAX(ROUND(CAST(
        COALESCE(norepinephrine, 0)
        + COALESCE(epinephrine, 0)
        + COALESCE(phenylephrine, 0) / 10
        + COALESCE(dopamine, 0) / 10
        + COALESCE(vasopressin, 0) * 2.5 / 60
        AS DECIMAL(18, 3)), 4)) AS norepinephrine_equivalent_dose
FROM mimiciv_derived.vasoactive_agent
WHERE norepinephrine IS NOT NULL
    OR epinephrine IS NOT NULL
    OR phenylephrine IS NOT NULL
    OR dopamine IS NOT NULL
    OR vasopressin IS NOT NULL
GROUP BY stay_id, starttime, endtime
