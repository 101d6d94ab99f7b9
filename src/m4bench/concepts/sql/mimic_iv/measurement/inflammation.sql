-- inflammation: C-reactive protein per lab specimen
-- Grain: one row per lab specimen (specimen_id)
-- Inputs: mimiciv_hosp.labevents item 50889 (crp) with valuenum non-null and > 0; per specimen
-- subject_id, hadm_id, charttime = MAX and crp = MAX valuenum.
SELECT
    MAX(subject_id) AS subject_id,
    MAX(hadm_id) AS hadm_id,
    MAX(charttime) AS charttime,
    specimen_id,
    MAX(valuenum) AS crp
FROM mimiciv_hosp.labevents
WHERE itemid = 50889
    AND valuenum IS NOT NULL
    AND valuenum > 0
GROUP BY specimen_id
