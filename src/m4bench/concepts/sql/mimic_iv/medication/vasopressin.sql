-- vasopressin: vasopressin infusion rows with the rate in units/hour
-- Grain: one row per mimiciv_icu.inputevents row with itemid 222315 (no status, rate or stay filter)
-- Inputs: mimiciv_icu.inputevents
-- Convention: a rate charted in units/min is multiplied by 60
SELECT
    stay_id,
    linkorderid,
    CASE WHEN rateuom = 'units/min' THEN rate * 60 ELSE rate END AS vaso_rate,
    amount AS vaso_amount,
    starttime,
    endtime
FROM mimiciv_icu.inputevents
WHERE itemid = 222315
