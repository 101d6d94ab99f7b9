-- KNOWN WRONG (mutant fahrenheit-cutoffs of reference.sql): Fahrenheit cut-offs (96.8, 100.4) applied to Celsius temperatures.
-- SIRS criteria in the first ICU day (MIMIC-IV).
-- Reads: mimiciv_icu.icustays and the first-day aggregates of vital signs, arterial blood
-- gases and laboratory panels (window [intime - 6 h, intime + 24 h]).
-- Grain: one row per ICU stay. A criterion with no data scores 0.
WITH scored AS (
    SELECT
        ie.subject_id,
        ie.hadm_id,
        ie.stay_id,
        CASE
            WHEN v.temperature_min < 96.8 THEN 1
            WHEN v.temperature_max > 100.4 THEN 1
            ELSE 0
        END AS temp_score,
        CASE WHEN v.heart_rate_max > 90.0 THEN 1 ELSE 0 END AS heart_rate_score,
        CASE
            WHEN v.resp_rate_max > 20.0 THEN 1
            WHEN bg.pco2_min < 32.0 THEN 1
            ELSE 0
        END AS resp_score,
        CASE
            WHEN lab.wbc_min < 4.0 THEN 1
            WHEN lab.wbc_max > 12.0 THEN 1
            WHEN lab.bands_max > 10 THEN 1
            ELSE 0
        END AS wbc_score
    FROM mimiciv_icu.icustays AS ie
    LEFT JOIN mimiciv_derived.first_day_vitalsign AS v ON v.stay_id = ie.stay_id
    LEFT JOIN mimiciv_derived.first_day_bg_art AS bg ON bg.stay_id = ie.stay_id
    LEFT JOIN mimiciv_derived.first_day_lab AS lab ON lab.stay_id = ie.stay_id
)
SELECT
    subject_id,
    hadm_id,
    stay_id,
    CAST(temp_score + heart_rate_score + resp_score + wbc_score AS INTEGER) AS sirs,
    CAST(temp_score AS INTEGER) AS temp_score,
    CAST(heart_rate_score AS INTEGER) AS heart_rate_score,
    CAST(resp_score AS INTEGER) AS resp_score,
    CAST(wbc_score AS INTEGER) AS wbc_score
FROM scored
