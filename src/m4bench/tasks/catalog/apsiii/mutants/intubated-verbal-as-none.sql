-- KNOWN WRONG (mutant intubated-verbal-as-none of reference.sql): an intubated patient's verbal response is scored as none (1) instead of exempting the GCS.
-- APS III (Acute Physiology Score III) over the first ICU day (MIMIC-IV).
-- Reads: mimiciv_icu.icustays, mimiciv_hosp.admissions, mimiciv_hosp.patients,
-- mimiciv_hosp.diagnoses_icd; mimiciv_derived first-day vital signs, laboratory values,
-- GCS and urine output, bg (arterial gases, by hadm_id) and ventilation. Grain: one row per
-- ICU stay. Vitals, labs and GCS cover [intime - 6 h, intime + 24 h]; urine output
-- [intime, intime + 24 h]; gases [intime, LEAST(outtime, intime + 24 h)).
-- Each value with a reference point is scored at its minimum and at its maximum and the one
-- further from the point counts; on equal distance the higher of the two scores counts.
-- BUN and bilirubin use the maximum. A component with no data scores 0.
WITH stays AS (
    SELECT ie.subject_id, ie.hadm_id, ie.stay_id, ie.intime, ie.outtime
    FROM mimiciv_icu.icustays AS ie
    INNER JOIN mimiciv_hosp.admissions AS adm ON adm.hadm_id = ie.hadm_id
    INNER JOIN mimiciv_hosp.patients AS pat ON pat.subject_id = ie.subject_id
),
ckd AS (
    SELECT
        hadm_id,
        MAX(
            CASE
                WHEN icd_version = 9 AND LEFT(icd_code, 4) IN ('5854', '5855', '5856') THEN 1
                WHEN icd_version = 10 AND LEFT(icd_code, 4) IN ('N184', 'N185', 'N186') THEN 1
                ELSE 0
            END
        ) AS ckd
    FROM mimiciv_hosp.diagnoses_icd
    GROUP BY hadm_id
),
vent AS (
    SELECT s.stay_id, 1 AS vent
    FROM stays AS s
    INNER JOIN mimiciv_derived.ventilation AS v
        ON v.stay_id = s.stay_id
        AND v.ventilation_status = 'InvasiveVent'
        AND v.starttime <= s.intime + INTERVAL 24 HOUR
        AND v.endtime >= s.intime
    GROUP BY s.stay_id
),
gases AS (
    SELECT
        s.stay_id,
        bg.charttime,
        bg.po2,
        bg.aado2,
        bg.ph,
        bg.pco2,
        bg.fio2,
        bg.fio2_chartevents,
        EXISTS (
            SELECT 1
            FROM mimiciv_derived.ventilation AS v
            WHERE v.stay_id = s.stay_id
                AND v.ventilation_status = 'InvasiveVent'
                AND bg.charttime >= v.starttime
                AND bg.charttime <= v.endtime
        ) AS on_vent
    FROM stays AS s
    INNER JOIN mimiciv_derived.bg AS bg
        ON bg.hadm_id = s.hadm_id
        AND bg.specimen = 'ART.'
        AND bg.charttime >= s.intime
        AND bg.charttime < LEAST(s.outtime, s.intime + INTERVAL 24 HOUR)
),
gas_scores AS (
    SELECT
        stay_id,
        MAX(
            CASE
                WHEN NOT on_vent AND po2 IS NOT NULL AND COALESCE(fio2, fio2_chartevents, 21) < 50
                    THEN po2
            END
        ) AS pao2,
        MAX(
            CASE WHEN on_vent AND COALESCE(fio2, fio2_chartevents) >= 50 THEN aado2 END
        ) AS aado2,
        MAX(
            CASE
                WHEN ph IS NULL OR pco2 IS NULL THEN NULL
                WHEN ph < 7.20 THEN CASE WHEN pco2 < 50 THEN 12 ELSE 4 END
                WHEN ph < 7.30 THEN
                    CASE
                        WHEN pco2 < 30 THEN 9 WHEN pco2 < 40 THEN 6 WHEN pco2 < 50 THEN 3 ELSE 2
                    END
                WHEN ph < 7.35 THEN CASE WHEN pco2 < 30 THEN 9 WHEN pco2 < 45 THEN 0 ELSE 1 END
                WHEN ph < 7.45 THEN CASE WHEN pco2 < 30 THEN 5 WHEN pco2 < 45 THEN 0 ELSE 1 END
                WHEN ph < 7.50 THEN
                    CASE
                        WHEN pco2 < 30 THEN 5 WHEN pco2 < 35 THEN 0 WHEN pco2 < 45 THEN 2 ELSE 12
                    END
                WHEN ph < 7.60 THEN CASE WHEN pco2 < 40 THEN 3 ELSE 12 END
                ELSE CASE WHEN pco2 < 25 THEN 0 WHEN pco2 < 40 THEN 3 ELSE 12 END
            END
        ) AS acidbase_score
    FROM gases
    GROUP BY stay_id
),
inputs AS (
    SELECT
        s.subject_id,
        s.hadm_id,
        s.stay_id,
        COALESCE(vent.vent, 0) AS vent,
        CASE
            WHEN lab.creatinine_max >= 1.5 AND uo.urineoutput < 410 AND ckd.ckd = 0 THEN 1
            ELSE 0
        END AS arf,
        vital.heart_rate_min,
        vital.heart_rate_max,
        vital.mbp_min,
        vital.mbp_max,
        CAST(vital.temperature_min AS DOUBLE) AS temperature_min,
        CAST(vital.temperature_max AS DOUBLE) AS temperature_max,
        vital.resp_rate_min,
        vital.resp_rate_max,
        lab.hematocrit_min,
        lab.hematocrit_max,
        lab.wbc_min,
        lab.wbc_max,
        lab.creatinine_min,
        lab.creatinine_max,
        lab.bun_min,
        lab.bun_max,
        lab.sodium_min,
        lab.sodium_max,
        lab.albumin_min,
        lab.albumin_max,
        lab.bilirubin_total_min,
        lab.bilirubin_total_max,
        LEAST(lab.glucose_min, vital.glucose_min) AS glucose_min,
        GREATEST(lab.glucose_max, vital.glucose_max) AS glucose_max,
        uo.urineoutput,
        gcs.gcs_eyes,
        CASE WHEN gcs.gcs_unable = 1 THEN 1 ELSE gcs.gcs_verbal END AS gcs_verbal,
        gcs.gcs_motor,
        gcs.gcs_unable,
        gs.pao2,
        gs.aado2,
        gs.acidbase_score
    FROM stays AS s
    LEFT JOIN vent ON vent.stay_id = s.stay_id
    LEFT JOIN ckd ON ckd.hadm_id = s.hadm_id
    LEFT JOIN mimiciv_derived.first_day_vitalsign AS vital ON vital.stay_id = s.stay_id
    LEFT JOIN mimiciv_derived.first_day_lab AS lab ON lab.stay_id = s.stay_id
    LEFT JOIN mimiciv_derived.first_day_urine_output AS uo ON uo.stay_id = s.stay_id
    LEFT JOIN mimiciv_derived.first_day_gcs AS gcs ON gcs.stay_id = s.stay_id
    LEFT JOIN gas_scores AS gs ON gs.stay_id = s.stay_id
),
-- One row per stay and scored variable: its first-day minimum and maximum, the reference
-- point its distance is measured from (NULL: the maximum always counts).
readings AS (
    SELECT
        stay_id,
        vent,
        'hr' AS variable,
        75.0 AS midpoint,
        heart_rate_min AS lo,
        heart_rate_max AS hi
    FROM inputs
    UNION ALL
    SELECT stay_id, vent, 'mbp', 90.0, mbp_min, mbp_max FROM inputs
    UNION ALL
    SELECT stay_id, vent, 'temp', 38.0, temperature_min, temperature_max FROM inputs
    UNION ALL
    SELECT stay_id, vent, 'resp_rate', 19.0, resp_rate_min, resp_rate_max FROM inputs
    UNION ALL
    SELECT stay_id, vent, 'hematocrit', 45.5, hematocrit_min, hematocrit_max FROM inputs
    UNION ALL
    SELECT stay_id, vent, 'wbc', 11.5, wbc_min, wbc_max FROM inputs
    UNION ALL
    SELECT
        stay_id,
        vent,
        CASE WHEN arf = 1 THEN 'creatinine_arf' ELSE 'creatinine' END,
        CASE WHEN arf = 1 THEN NULL ELSE 1.0 END,
        creatinine_min,
        creatinine_max
    FROM inputs
    UNION ALL
    SELECT stay_id, vent, 'bun', NULL, bun_min, bun_max FROM inputs
    UNION ALL
    SELECT stay_id, vent, 'sodium', 145.5, sodium_min, sodium_max FROM inputs
    UNION ALL
    SELECT stay_id, vent, 'albumin', 3.5, albumin_min, albumin_max FROM inputs
    UNION ALL
    SELECT stay_id, vent, 'bilirubin', NULL, bilirubin_total_min, bilirubin_total_max FROM inputs
    UNION ALL
    SELECT stay_id, vent, 'glucose', 130.0, glucose_min, glucose_max FROM inputs
),
-- Each ladder: a value scores the points of the first step it lies below (NULL: no bound).
ladders (variable, below, points) AS (
    VALUES
        ('hr', 40.0, 8), ('hr', 50.0, 5), ('hr', 100.0, 0), ('hr', 110.0, 1), ('hr', 120.0, 5),
        ('hr', 140.0, 7), ('hr', 155.0, 13), ('hr', NULL, 17),
        ('mbp', 40.0, 23), ('mbp', 60.0, 15), ('mbp', 70.0, 7), ('mbp', 80.0, 6),
        ('mbp', 100.0, 0), ('mbp', 120.0, 4), ('mbp', 130.0, 7), ('mbp', 140.0, 9),
        ('mbp', NULL, 10),
        ('temp', 33.0, 20), ('temp', 33.5, 16), ('temp', 34.0, 13), ('temp', 35.0, 8),
        ('temp', 36.0, 2), ('temp', 40.0, 0), ('temp', NULL, 4),
        ('resp_rate', 6.0, 17), ('resp_rate', 12.0, 8), ('resp_rate', 14.0, 7),
        ('resp_rate', 25.0, 0), ('resp_rate', 35.0, 6), ('resp_rate', 40.0, 9),
        ('resp_rate', 50.0, 11), ('resp_rate', NULL, 18),
        ('hematocrit', 41.0, 3), ('hematocrit', 50.0, 0), ('hematocrit', NULL, 3),
        ('wbc', 1.0, 19), ('wbc', 3.0, 5), ('wbc', 20.0, 0), ('wbc', 25.0, 1), ('wbc', NULL, 5),
        ('creatinine', 0.5, 3), ('creatinine', 1.5, 0), ('creatinine', 1.95, 4),
        ('creatinine', NULL, 7),
        ('creatinine_arf', 1.5, 0), ('creatinine_arf', NULL, 10),
        ('bun', 17.0, 0), ('bun', 20.0, 2), ('bun', 40.0, 7), ('bun', 80.0, 11), ('bun', NULL, 12),
        ('sodium', 120.0, 3), ('sodium', 135.0, 2), ('sodium', 155.0, 0), ('sodium', NULL, 4),
        ('albumin', 2.0, 11), ('albumin', 2.5, 6), ('albumin', 4.5, 0), ('albumin', NULL, 4),
        ('bilirubin', 2.0, 0), ('bilirubin', 3.0, 5), ('bilirubin', 5.0, 6), ('bilirubin', 8.0, 8),
        ('bilirubin', NULL, 16),
        ('glucose', 40.0, 8), ('glucose', 60.0, 9), ('glucose', 200.0, 0), ('glucose', 350.0, 3),
        ('glucose', NULL, 5)
),
sided AS (
    SELECT stay_id, vent, variable, 'lo' AS side, lo AS value FROM readings
    UNION ALL
    SELECT stay_id, vent, variable, 'hi', hi FROM readings
),
side_points AS (
    SELECT
        sd.stay_id,
        sd.variable,
        sd.side,
        CASE
            WHEN sd.variable = 'resp_rate' AND sd.vent = 1 AND sd.value < 14 THEN 0
            ELSE ARG_MIN(l.points, COALESCE(l.below, 1e308))
        END AS points
    FROM sided AS sd
    INNER JOIN ladders AS l
        ON l.variable = sd.variable
        AND (sd.value < l.below OR l.below IS NULL)
    GROUP BY sd.stay_id, sd.vent, sd.variable, sd.side, sd.value
),
worst AS (
    SELECT
        r.stay_id,
        r.variable,
        CASE
            WHEN r.hi IS NULL THEN NULL
            WHEN r.midpoint IS NULL THEN hi_points.points
            WHEN ABS(r.hi - r.midpoint) > ABS(r.lo - r.midpoint) THEN hi_points.points
            WHEN ABS(r.hi - r.midpoint) < ABS(r.lo - r.midpoint) THEN lo_points.points
            WHEN ABS(r.hi - r.midpoint) = ABS(r.lo - r.midpoint)
                THEN GREATEST(hi_points.points, lo_points.points)
        END AS points
    FROM readings AS r
    LEFT JOIN side_points AS hi_points
        ON hi_points.stay_id = r.stay_id
        AND hi_points.variable = r.variable
        AND hi_points.side = 'hi'
    LEFT JOIN side_points AS lo_points
        ON lo_points.stay_id = r.stay_id
        AND lo_points.variable = r.variable
        AND lo_points.side = 'lo'
),
worst_by_stay AS (
    SELECT
        stay_id,
        MAX(CASE WHEN variable = 'hr' THEN points END) AS hr_score,
        MAX(CASE WHEN variable = 'mbp' THEN points END) AS mbp_score,
        MAX(CASE WHEN variable = 'temp' THEN points END) AS temp_score,
        MAX(CASE WHEN variable = 'resp_rate' THEN points END) AS resp_rate_score,
        MAX(CASE WHEN variable = 'hematocrit' THEN points END) AS hematocrit_score,
        MAX(CASE WHEN variable = 'wbc' THEN points END) AS wbc_score,
        MAX(CASE WHEN variable LIKE 'creatinine%' THEN points END) AS creatinine_score,
        MAX(CASE WHEN variable = 'bun' THEN points END) AS bun_score,
        MAX(CASE WHEN variable = 'sodium' THEN points END) AS sodium_score,
        MAX(CASE WHEN variable = 'albumin' THEN points END) AS albumin_score,
        MAX(CASE WHEN variable = 'bilirubin' THEN points END) AS bilirubin_score,
        MAX(CASE WHEN variable = 'glucose' THEN points END) AS glucose_score
    FROM worst
    GROUP BY stay_id
),
scored AS (
    SELECT
        i.subject_id,
        i.hadm_id,
        i.stay_id,
        COALESCE(w.hr_score, 0) AS hr_score,
        COALESCE(w.mbp_score, 0) AS mbp_score,
        COALESCE(w.temp_score, 0) AS temp_score,
        COALESCE(w.resp_rate_score, 0) AS resp_rate_score,
        COALESCE(
            CASE
                WHEN i.pao2 IS NOT NULL THEN
                    CASE
                        WHEN i.pao2 < 50 THEN 15
                        WHEN i.pao2 < 70 THEN 5
                        WHEN i.pao2 < 80 THEN 2
                        ELSE 0
                    END
                WHEN i.aado2 IS NOT NULL THEN
                    CASE
                        WHEN i.aado2 < 100 THEN 0
                        WHEN i.aado2 < 250 THEN 7
                        WHEN i.aado2 < 350 THEN 9
                        WHEN i.aado2 < 500 THEN 11
                        ELSE 14
                    END
            END,
            0
        ) AS pao2_aado2_score,
        COALESCE(w.hematocrit_score, 0) AS hematocrit_score,
        COALESCE(w.wbc_score, 0) AS wbc_score,
        COALESCE(w.creatinine_score, 0) AS creatinine_score,
        CASE
            WHEN i.urineoutput IS NULL THEN 0
            WHEN i.urineoutput < 400 THEN 15
            WHEN i.urineoutput < 600 THEN 8
            WHEN i.urineoutput < 900 THEN 7
            WHEN i.urineoutput < 1500 THEN 5
            WHEN i.urineoutput < 2000 THEN 4
            WHEN i.urineoutput < 4000 THEN 0
            ELSE 1
        END AS uo_score,
        COALESCE(w.bun_score, 0) AS bun_score,
        COALESCE(w.sodium_score, 0) AS sodium_score,
        COALESCE(w.albumin_score, 0) AS albumin_score,
        COALESCE(w.bilirubin_score, 0) AS bilirubin_score,
        COALESCE(w.glucose_score, 0) AS glucose_score,
        COALESCE(i.acidbase_score, 0) AS acidbase_score,
        COALESCE(
            CASE
                WHEN i.gcs_eyes = 1 THEN
                    CASE
                        WHEN i.gcs_verbal = 1 AND i.gcs_motor IN (1, 2) THEN 48
                        WHEN i.gcs_verbal = 1 AND i.gcs_motor IN (3, 4) THEN 33
                        WHEN i.gcs_verbal = 1 AND i.gcs_motor IN (5, 6) THEN 16
                        WHEN i.gcs_verbal IN (2, 3) AND i.gcs_motor IN (1, 2) THEN 29
                        WHEN i.gcs_verbal IN (2, 3) AND i.gcs_motor IN (3, 4) THEN 24
                    END
                WHEN i.gcs_eyes > 1 THEN
                    CASE
                        WHEN i.gcs_verbal = 1 AND i.gcs_motor IN (1, 2) THEN 29
                        WHEN i.gcs_verbal = 1 AND i.gcs_motor IN (3, 4) THEN 24
                        WHEN i.gcs_verbal = 1 AND i.gcs_motor IN (5, 6) THEN 15
                        WHEN i.gcs_verbal IN (2, 3) AND i.gcs_motor IN (1, 2) THEN 29
                        WHEN i.gcs_verbal IN (2, 3) AND i.gcs_motor IN (3, 4) THEN 24
                        WHEN i.gcs_verbal IN (2, 3) AND i.gcs_motor = 5 THEN 13
                        WHEN i.gcs_verbal IN (2, 3) AND i.gcs_motor = 6 THEN 10
                        WHEN i.gcs_verbal = 4 AND i.gcs_motor IN (1, 2, 3, 4) THEN 13
                        WHEN i.gcs_verbal = 4 AND i.gcs_motor = 5 THEN 8
                        WHEN i.gcs_verbal = 4 AND i.gcs_motor = 6 THEN 3
                        WHEN i.gcs_verbal = 5 AND i.gcs_motor IN (1, 2, 3, 4, 5) THEN 3
                        WHEN i.gcs_verbal = 5 AND i.gcs_motor = 6 THEN 0
                    END
            END,
            0
        ) AS gcs_score
    FROM inputs AS i
    LEFT JOIN worst_by_stay AS w ON w.stay_id = i.stay_id
)
SELECT
    ie.subject_id,
    ie.hadm_id,
    ie.stay_id,
    CAST(
        COALESCE(
            s.hr_score + s.mbp_score + s.temp_score + s.resp_rate_score + s.pao2_aado2_score
            + s.hematocrit_score + s.wbc_score + s.creatinine_score + s.uo_score + s.bun_score
            + s.sodium_score + s.albumin_score + s.bilirubin_score + s.glucose_score
            + s.acidbase_score + s.gcs_score,
            0
        ) AS INTEGER
    ) AS apsiii,
    CAST(COALESCE(s.hr_score, 0) AS INTEGER) AS hr_score,
    CAST(COALESCE(s.mbp_score, 0) AS INTEGER) AS mbp_score,
    CAST(COALESCE(s.temp_score, 0) AS INTEGER) AS temp_score,
    CAST(COALESCE(s.resp_rate_score, 0) AS INTEGER) AS resp_rate_score,
    CAST(COALESCE(s.pao2_aado2_score, 0) AS INTEGER) AS pao2_aado2_score,
    CAST(COALESCE(s.hematocrit_score, 0) AS INTEGER) AS hematocrit_score,
    CAST(COALESCE(s.wbc_score, 0) AS INTEGER) AS wbc_score,
    CAST(COALESCE(s.creatinine_score, 0) AS INTEGER) AS creatinine_score,
    CAST(COALESCE(s.uo_score, 0) AS INTEGER) AS uo_score,
    CAST(COALESCE(s.bun_score, 0) AS INTEGER) AS bun_score,
    CAST(COALESCE(s.sodium_score, 0) AS INTEGER) AS sodium_score,
    CAST(COALESCE(s.albumin_score, 0) AS INTEGER) AS albumin_score,
    CAST(COALESCE(s.bilirubin_score, 0) AS INTEGER) AS bilirubin_score,
    CAST(COALESCE(s.glucose_score, 0) AS INTEGER) AS glucose_score,
    CAST(COALESCE(s.acidbase_score, 0) AS INTEGER) AS acidbase_score,
    CAST(COALESCE(s.gcs_score, 0) AS INTEGER) AS gcs_score
FROM mimiciv_icu.icustays AS ie
LEFT JOIN scored AS s ON s.stay_id = ie.stay_id
