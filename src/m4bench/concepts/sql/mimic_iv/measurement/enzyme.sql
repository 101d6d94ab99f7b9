-- enzyme: liver and muscle enzymes and bilirubin per lab specimen
-- Grain: one row per lab specimen (specimen_id)
-- Inputs: mimiciv_hosp.labevents rows of the enzyme items with valuenum non-null and > 0; per
-- specimen subject_id, hadm_id, charttime = MAX and each analyte = MAX valuenum.
SELECT
    MAX(subject_id) AS subject_id,
    MAX(hadm_id) AS hadm_id,
    MAX(charttime) AS charttime,
    specimen_id,
    MAX(CASE WHEN itemid = 50861 THEN valuenum END) AS alt,
    MAX(CASE WHEN itemid = 50863 THEN valuenum END) AS alp,
    MAX(CASE WHEN itemid = 50878 THEN valuenum END) AS ast,
    MAX(CASE WHEN itemid = 50867 THEN valuenum END) AS amylase,
    MAX(CASE WHEN itemid = 50885 THEN valuenum END) AS bilirubin_total,
    MAX(CASE WHEN itemid = 50883 THEN valuenum END) AS bilirubin_direct,
    MAX(CASE WHEN itemid = 50884 THEN valuenum END) AS bilirubin_indirect,
    MAX(CASE WHEN itemid = 50910 THEN valuenum END) AS ck_cpk,
    MAX(CASE WHEN itemid = 50911 THEN valuenum END) AS ck_mb,
    MAX(CASE WHEN itemid = 50927 THEN valuenum END) AS ggt,
    MAX(CASE WHEN itemid = 50954 THEN valuenum END) AS ld_ldh
FROM mimiciv_hosp.labevents
WHERE itemid IN (50861, 50863, 50878, 50867, 50885, 50883, 50884, 50910, 50911, 50927, 50954)
    AND valuenum IS NOT NULL
    AND valuenum > 0
GROUP BY specimen_id
