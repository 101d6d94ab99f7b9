-- cardiac_marker: troponin T, CK-MB and NT-proBNP per lab specimen
-- Grain: one row per lab specimen (specimen_id)
-- Inputs: mimiciv_hosp.labevents items 51003 (troponin_t), 50911 (ck_mb), 50963 (ntprobnp) with
-- valuenum non-null; per specimen subject_id, hadm_id, charttime = MAX, each analyte = MAX valuenum.
SELECT
    MAX(subject_id) AS subject_id,
    MAX(hadm_id) AS hadm_id,
    MAX(charttime) AS charttime,
    specimen_id,
    MAX(CASE WHEN itemid = 51003 THEN valuenum END) AS troponin_t,
    MAX(CASE WHEN itemid = 50911 THEN valuenum END) AS ck_mb,
    MAX(CASE WHEN itemid = 50963 THEN valuenum END) AS ntprobnp
FROM mimiciv_hosp.labevents
WHERE itemid IN (51003, 50911, 50963)
    AND valuenum IS NOT NULL
GROUP BY specimen_id
