-- norepinephrine_equivalent_dose: norepinephrine-equivalent dose (mcg/kg/min) of each vasoactive_agent interval
-- Grain: one row per vasoactive_agent row with at least one of norepinephrine, epinephrine, phenylephrine,
--   dopamine or vasopressin non-null (duplicate intervals are kept, one row per vasoactive_agent row)
-- Inputs: vasoactive_agent
-- Convention: NED = ne + epi + phenylephrine/10 + dopamine/100 + vasopressin (units/hour) * 2.5/60, a NULL
--   term counting 0; the sum is cast to DECIMAL(18,3). Dobutamine and milrinone do not contribute.
SELECT
    stay_id,
    starttime,
    endtime,
    TRY_CAST(
        COALESCE(norepinephrine, 0)
        + COALESCE(epinephrine, 0)
        + COALESCE(phenylephrine / 10, 0)
        + COALESCE(dopamine / 100, 0)
        + COALESCE(vasopressin * 2.5 / 60, 0)
        AS DECIMAL(18, 3)
    ) AS norepinephrine_equivalent_dose
FROM mimiciv_derived.vasoactive_agent
WHERE
    norepinephrine IS NOT NULL
    OR epinephrine IS NOT NULL
    OR phenylephrine IS NOT NULL
    OR dopamine IS NOT NULL
    OR vasopressin IS NOT NULL
