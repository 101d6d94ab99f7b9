-- chemistry: chemistry panel values per lab specimen
-- Grain: one row per lab specimen (specimen_id)
-- Inputs: mimiciv_hosp.labevents rows of the panel's items with valuenum non-null and > 0
-- (anion gap 50868 may be <= 0). Per specimen: subject_id, hadm_id, charttime = MAX; each analyte =
-- MAX valuenum of its item among values within its upper bound (albumin 10, globulin 10,
-- total_protein 20, bun 300, creatinine 150, sodium 200, potassium 30, others 10000). A specimen
-- with only out-of-bound values still has a row, its analytes NULL.
SELECT
    MAX(subject_id) AS subject_id,
    MAX(hadm_id) AS hadm_id,
    MAX(charttime) AS charttime,
    specimen_id,
    MAX(CASE WHEN itemid = 50862 AND valuenum <= 10 THEN valuenum END) AS albumin,
    MAX(CASE WHEN itemid = 50930 AND valuenum <= 10 THEN valuenum END) AS globulin,
    MAX(CASE WHEN itemid = 50976 AND valuenum <= 20 THEN valuenum END) AS total_protein,
    MAX(CASE WHEN itemid = 50868 AND valuenum <= 10000 THEN valuenum END) AS aniongap,
    MAX(CASE WHEN itemid = 50882 AND valuenum <= 10000 THEN valuenum END) AS bicarbonate,
    MAX(CASE WHEN itemid = 51006 AND valuenum <= 300 THEN valuenum END) AS bun,
    MAX(CASE WHEN itemid = 50893 AND valuenum <= 10000 THEN valuenum END) AS calcium,
    MAX(CASE WHEN itemid = 50902 AND valuenum <= 10000 THEN valuenum END) AS chloride,
    MAX(CASE WHEN itemid = 50912 AND valuenum <= 150 THEN valuenum END) AS creatinine,
    MAX(CASE WHEN itemid = 50931 AND valuenum <= 10000 THEN valuenum END) AS glucose,
    MAX(CASE WHEN itemid = 50983 AND valuenum <= 200 THEN valuenum END) AS sodium,
    MAX(CASE WHEN itemid = 50971 AND valuenum <= 30 THEN valuenum END) AS potassium
FROM mimiciv_hosp.labevents
WHERE itemid IN (
        50862, 50930, 50976, 50868, 50882, 51006, 50893, 50902, 50912, 50931, 50983, 50971
    )
    AND valuenum IS NOT NULL
    AND (valuenum > 0 OR itemid = 50868)
GROUP BY specimen_id
