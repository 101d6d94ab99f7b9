-- milrinone: milrinone infusion rows with the rate in mcg/kg/min
-- Grain: one row per mimiciv_icu.inputevents row with itemid 221986 (no status, rate or stay filter)
-- Inputs: mimiciv_icu.inputevents
-- Convention: the rate is taken as charted
SELECT
    stay_id,
    linkorderid,
    rate AS vaso_rate,
    amount AS vaso_amount,
    starttime,
    endtime
FROM mimiciv_icu.inputevents
WHERE itemid = 221986
