-- first_day_height: mean charted height over the first ICU day, in centimetres
-- Grain: one row per ICU stay (stay_id); every icustays row, NULL when no height
-- Inputs: mimiciv_icu.icustays left-joined to mimiciv_derived.height on stay_id with charttime
-- in [intime - 6 h, intime + 24 h]; height = AVG cast to DECIMAL(18,3) and rounded to 2 decimals.
-- Inch-only heights count too (see the deviation recorded in `height`).
SELECT
    ie.subject_id,
    ie.stay_id,
    ROUND(TRY_CAST(AVG(ht.height) AS DECIMAL(18, 3)), 2) AS height
FROM mimiciv_icu.icustays AS ie
LEFT JOIN mimiciv_derived.height AS ht
    ON ie.stay_id = ht.stay_id
    AND ht.charttime BETWEEN ie.intime - INTERVAL 6 HOUR AND ie.intime + INTERVAL 24 HOUR
GROUP BY ie.subject_id, ie.stay_id
