-- acei: prescriptions of angiotensin-converting-enzyme inhibitors
-- Grain: one row per mimiciv_hosp.prescriptions row whose lower-cased drug name contains an ACE inhibitor name
-- Inputs: mimiciv_hosp.prescriptions
-- Convention: generic names only (benazepril, captopril, enalapril (incl. enalaprilat), fosinopril, lisinopril,
--   moexipril, perindopril, quinapril, ramipril, trandolapril); combination products match through their
--   generic component.
SELECT
    subject_id,
    hadm_id,
    drug AS acei,
    route,
    starttime,
    stoptime
FROM mimiciv_hosp.prescriptions
WHERE
    REGEXP_MATCHES(
        LOWER(drug),
        'benazepril|captopril|enalapril|fosinopril|lisinopril|moexipril|perindopril|quinapril|ramipril|trandolapril'
    )
