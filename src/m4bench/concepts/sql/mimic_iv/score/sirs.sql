-- sirs: Systemic Inflammatory Response Syndrome criteria over the first ICU day
-- Grain: one row per mimiciv_icu.icustays row
-- Inputs: mimiciv_icu.icustays, first_day_vitalsign, first_day_bg_art, first_day_lab
-- Convention: temperature < 36.0 or > 38.0 degC; heart rate > 90; respiratory rate > 20 or arterial PaCO2
--   < 32; WBC < 4.0 or > 12.0 K/uL or bands > 10 %. Each criterion is 1 or 0, NULL when its inputs are all
--   missing; sirs counts NULL as 0.
WITH inputs AS (
    SELECT
        ie.subject_id,
        ie.hadm_id,
        ie.stay_id,
        vit.temperature_min,
        vit.temperature_max,
        vit.heart_rate_max,
        vit.resp_rate_max,
        art.pco2_min AS paco2_min,
        lab.wbc_min,
        lab.wbc_max,
        lab.bands_max
    FROM mimiciv_icu.icustays AS ie
    LEFT JOIN mimiciv_derived.first_day_vitalsign AS vit ON ie.stay_id = vit.stay_id
    LEFT JOIN mimiciv_derived.first_day_bg_art AS art ON ie.stay_id = art.stay_id
    LEFT JOIN mimiciv_derived.first_day_lab AS lab ON ie.stay_id = lab.stay_id
),
components AS (
    SELECT
        subject_id,
        hadm_id,
        stay_id,
        CASE
            WHEN temperature_min < 36.0 THEN 1
            WHEN temperature_max > 38.0 THEN 1
            WHEN temperature_min IS NULL THEN NULL
            ELSE 0
        END AS temp_score,
        CASE
            WHEN heart_rate_max > 90.0 THEN 1
            WHEN heart_rate_max IS NULL THEN NULL
            ELSE 0
        END AS heart_rate_score,
        CASE
            WHEN resp_rate_max > 20.0 THEN 1
            WHEN paco2_min < 32.0 THEN 1
            WHEN COALESCE(resp_rate_max, paco2_min) IS NULL THEN NULL
            ELSE 0
        END AS resp_score,
        CASE
            WHEN wbc_min < 4.0 THEN 1
            WHEN wbc_max > 12.0 THEN 1
            WHEN bands_max > 10 THEN 1
            WHEN COALESCE(wbc_min, bands_max) IS NULL THEN NULL
            ELSE 0
        END AS wbc_score
    FROM inputs
)
SELECT
    subject_id,
    hadm_id,
    stay_id,
    COALESCE(temp_score, 0)
    + COALESCE(heart_rate_score, 0)
    + COALESCE(resp_score, 0)
    + COALESCE(wbc_score, 0) AS sirs,
    temp_score,
    heart_rate_score,
    resp_score,
    wbc_score
FROM components
