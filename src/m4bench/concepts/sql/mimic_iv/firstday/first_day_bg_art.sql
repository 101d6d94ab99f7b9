-- first_day_bg_art: minimum and maximum of each arterial blood-gas value over the first ICU day
-- Grain: one row per ICU stay (stay_id); every icustays row, all NULL when no arterial gas
-- Inputs: mimiciv_icu.icustays left-joined to mimiciv_derived.bg on subject_id with specimen
-- exactly 'ART.' and charttime in [intime - 6 h, intime + 24 h]. A gas without a specimen-type
-- row (specimen NULL) is not arterial.
SELECT
    ie.subject_id,
    ie.stay_id,
    MIN(bg.lactate) AS lactate_min,
    MAX(bg.lactate) AS lactate_max,
    MIN(bg.ph) AS ph_min,
    MAX(bg.ph) AS ph_max,
    MIN(bg.so2) AS so2_min,
    MAX(bg.so2) AS so2_max,
    MIN(bg.po2) AS po2_min,
    MAX(bg.po2) AS po2_max,
    MIN(bg.pco2) AS pco2_min,
    MAX(bg.pco2) AS pco2_max,
    MIN(bg.aado2) AS aado2_min,
    MAX(bg.aado2) AS aado2_max,
    MIN(bg.aado2_calc) AS aado2_calc_min,
    MAX(bg.aado2_calc) AS aado2_calc_max,
    MIN(bg.pao2fio2ratio) AS pao2fio2ratio_min,
    MAX(bg.pao2fio2ratio) AS pao2fio2ratio_max,
    MIN(bg.baseexcess) AS baseexcess_min,
    MAX(bg.baseexcess) AS baseexcess_max,
    MIN(bg.bicarbonate) AS bicarbonate_min,
    MAX(bg.bicarbonate) AS bicarbonate_max,
    MIN(bg.totalco2) AS totalco2_min,
    MAX(bg.totalco2) AS totalco2_max,
    MIN(bg.hematocrit) AS hematocrit_min,
    MAX(bg.hematocrit) AS hematocrit_max,
    MIN(bg.hemoglobin) AS hemoglobin_min,
    MAX(bg.hemoglobin) AS hemoglobin_max,
    MIN(bg.carboxyhemoglobin) AS carboxyhemoglobin_min,
    MAX(bg.carboxyhemoglobin) AS carboxyhemoglobin_max,
    MIN(bg.methemoglobin) AS methemoglobin_min,
    MAX(bg.methemoglobin) AS methemoglobin_max,
    MIN(bg.temperature) AS temperature_min,
    MAX(bg.temperature) AS temperature_max,
    MIN(bg.chloride) AS chloride_min,
    MAX(bg.chloride) AS chloride_max,
    MIN(bg.calcium) AS calcium_min,
    MAX(bg.calcium) AS calcium_max,
    MIN(bg.glucose) AS glucose_min,
    MAX(bg.glucose) AS glucose_max,
    MIN(bg.potassium) AS potassium_min,
    MAX(bg.potassium) AS potassium_max,
    MIN(bg.sodium) AS sodium_min,
    MAX(bg.sodium) AS sodium_max
FROM mimiciv_icu.icustays AS ie
LEFT JOIN mimiciv_derived.bg AS bg
    ON ie.subject_id = bg.subject_id
    AND bg.charttime BETWEEN ie.intime - INTERVAL 6 HOUR AND ie.intime + INTERVAL 24 HOUR
    AND bg.specimen = 'ART.'
GROUP BY ie.subject_id, ie.stay_id
