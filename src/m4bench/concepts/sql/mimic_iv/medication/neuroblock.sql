-- neuroblock: neuromuscular blocking agent infusions (vecuronium, cisatracurium)
-- Grain: one row per mimiciv_icu.inputevents row with itemid 222062 or 221555 and a non-null rate
-- Inputs: mimiciv_icu.inputevents
SELECT
    stay_id,
    orderid,
    itemid,
    rate AS drug_rate,
    amount AS drug_amount,
    starttime,
    endtime
FROM mimiciv_icu.inputevents
WHERE itemid IN (222062, 221555) AND rate IS NOT NULL
