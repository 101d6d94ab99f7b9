-- norepinephrine: norepinephrine infusion rows with the rate in mcg/kg/min
-- Grain: one row per mimiciv_icu.inputevents row with itemid 221906 (no status, rate or stay filter)
-- Inputs: mimiciv_icu.inputevents
-- Convention: a rate charted in mg/kg/min is multiplied by 1000, except when the recorded weight is exactly 1 kg
SELECT
    stay_id,
    linkorderid,
    CASE
        WHEN rateuom = 'mg/kg/min' AND patientweight = 1 THEN rate
        WHEN rateuom = 'mg/kg/min' THEN rate * 1000
        ELSE rate
    END AS vaso_rate,
    amount AS vaso_amount,
    starttime,
    endtime
FROM mimiciv_icu.inputevents
WHERE itemid = 221906
