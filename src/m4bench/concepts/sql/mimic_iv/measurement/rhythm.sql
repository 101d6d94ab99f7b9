-- rhythm: charted heart rhythm and ectopy per subject and time
-- Grain: one row per (subject_id, charttime) with a rhythm item charted
-- Inputs: mimiciv_icu.chartevents 220048 (heart_rhythm), 224650 (ectopy_type), 224651
-- (ectopy_frequency), 226479 (ectopy_type_secondary), 226480 (ectopy_frequency_secondary); each
-- column is the MAX text value at that time.
SELECT
    subject_id,
    charttime,
    MAX(CASE WHEN itemid = 220048 THEN value END) AS heart_rhythm,
    MAX(CASE WHEN itemid = 224650 THEN value END) AS ectopy_type,
    MAX(CASE WHEN itemid = 224651 THEN value END) AS ectopy_frequency,
    MAX(CASE WHEN itemid = 226479 THEN value END) AS ectopy_type_secondary,
    MAX(CASE WHEN itemid = 226480 THEN value END) AS ectopy_frequency_secondary
FROM mimiciv_icu.chartevents
WHERE itemid IN (220048, 224650, 224651, 226479, 226480)
GROUP BY subject_id, charttime
