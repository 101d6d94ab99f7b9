-- phenylephrine: phenylephrine infusion rows with the rate in mcg/kg/min
-- Grain: one row per mimiciv_icu.inputevents row with itemid 221749 (no status, rate or stay filter)
-- Inputs: mimiciv_icu.inputevents
-- Convention: a rate charted in mcg/min is divided by the recorded patient weight
SELECT
    stay_id,
    linkorderid,
    CASE WHEN rateuom = 'mcg/min' THEN rate / patientweight ELSE rate END AS vaso_rate,
    amount AS vaso_amount,
    starttime,
    endtime
FROM mimiciv_icu.inputevents
WHERE itemid = 221749
