-- apsiii: APACHE III Acute Physiology Score over the first ICU day, with its 16 components and probability
-- Grain: one row per mimiciv_icu.icustays row
-- Inputs: mimiciv_icu.icustays, mimiciv_hosp.admissions, mimiciv_hosp.patients, mimiciv_hosp.diagnoses_icd,
--   bg, ventilation, first_day_vitalsign, first_day_lab, first_day_gcs, first_day_urine_output
-- Convention: vitals, labs, GCS and urine come from the first-day tables; glucose combines the lab and the
--   charted minima/maxima. Arterial ('ART.') gases are joined by hadm_id over the whole stay [intime,
--   outtime). PaO2 is the highest po2 of gases outside InvasiveVent episodes with FiO2 (lab, else charted,
--   else 21) < 50; A-aDO2 the highest measured aado2 of gases inside an episode with FiO2 >= 50.
-- Convention: each value is scored at its minimum and its maximum and the one further from the reference
--   point counts (HR 75, MBP 90, temperature 38, RR 19, hematocrit 45.5, WBC 11.5, sodium 145.5, albumin
--   3.5, glucose 130, creatinine 1), the higher score on a tie; BUN and bilirubin use the maximum. With
--   acute renal failure (creatinine >= 1.5, urine < 410 mL, no CKD code) creatinine scores 10 from 1.5.
--   Ventilated patients score 0 for any respiratory rate below 14. Components are NULL when missing;
--   apsiii counts NULL as 0.
WITH stays AS (
    SELECT ie.subject_id, ie.hadm_id, ie.stay_id, ie.intime, ie.outtime
    FROM mimiciv_icu.icustays AS ie
    INNER JOIN mimiciv_hosp.admissions AS adm ON ie.hadm_id = adm.hadm_id
    INNER JOIN mimiciv_hosp.patients AS pat ON ie.subject_id = pat.subject_id
),
ckd AS (
    SELECT
        hadm_id,
        MAX(
            CASE
                WHEN icd_version = 9 AND SUBSTR(icd_code, 1, 4) IN ('5854', '5855', '5856') THEN 1
                WHEN icd_version = 10 AND SUBSTR(icd_code, 1, 4) IN ('N184', 'N185', 'N186') THEN 1
                ELSE 0
            END
        ) AS ckd
    FROM mimiciv_hosp.diagnoses_icd
    GROUP BY hadm_id
),
vent AS (
    SELECT DISTINCT st.stay_id, 1 AS vent
    FROM stays AS st
    INNER JOIN mimiciv_derived.ventilation AS vd
        ON st.stay_id = vd.stay_id
        AND vd.ventilation_status = 'InvasiveVent'
        AND vd.starttime <= st.intime + INTERVAL 1 DAY
        AND vd.endtime >= st.intime
),
arterial AS (
    SELECT
        st.stay_id,
        bg.po2,
        bg.aado2,
        bg.ph,
        bg.pco2,
        COALESCE(bg.fio2, bg.fio2_chartevents) AS fio2,
        EXISTS (
            SELECT 1
            FROM mimiciv_derived.ventilation AS vd
            WHERE
                vd.stay_id = st.stay_id
                AND vd.ventilation_status = 'InvasiveVent'
                AND bg.charttime >= vd.starttime
                AND bg.charttime <= vd.endtime
        ) AS on_vent
    FROM stays AS st
    INNER JOIN mimiciv_derived.bg AS bg
        ON st.hadm_id = bg.hadm_id
        AND bg.charttime >= st.intime
        AND bg.charttime < st.outtime
    WHERE bg.specimen = 'ART.'
),
oxygenation AS (
    SELECT
        stay_id,
        MAX(CASE WHEN NOT on_vent AND COALESCE(fio2, 21) < 50 THEN po2 END) AS pao2,
        MAX(CASE WHEN on_vent AND fio2 >= 50 THEN aado2 END) AS aado2
    FROM arterial
    WHERE po2 IS NOT NULL
    GROUP BY stay_id
),
acid_base AS (
    SELECT
        stay_id,
        MAX(
            CASE
                WHEN ph < 7.20 THEN CASE WHEN pco2 < 50 THEN 12 ELSE 4 END
                WHEN ph < 7.30 THEN CASE WHEN pco2 < 30 THEN 9 WHEN pco2 < 40 THEN 6 WHEN pco2 < 50 THEN 3 ELSE 2 END
                WHEN ph < 7.35 THEN CASE WHEN pco2 < 30 THEN 9 WHEN pco2 < 45 THEN 0 ELSE 1 END
                WHEN ph < 7.45 THEN CASE WHEN pco2 < 30 THEN 5 WHEN pco2 < 45 THEN 0 ELSE 1 END
                WHEN ph < 7.50 THEN CASE WHEN pco2 < 30 THEN 5 WHEN pco2 < 35 THEN 0 WHEN pco2 < 45 THEN 2 ELSE 12 END
                WHEN ph < 7.60 THEN CASE WHEN pco2 < 40 THEN 3 ELSE 12 END
                ELSE CASE WHEN pco2 < 25 THEN 0 WHEN pco2 < 40 THEN 3 ELSE 12 END
            END
        ) AS acidbase_score
    FROM arterial
    WHERE ph IS NOT NULL AND pco2 IS NOT NULL
    GROUP BY stay_id
),
inputs AS (
    SELECT
        st.subject_id,
        st.hadm_id,
        st.stay_id,
        vit.heart_rate_min,
        vit.heart_rate_max,
        vit.mbp_min,
        vit.mbp_max,
        vit.temperature_min,
        vit.temperature_max,
        vit.resp_rate_min,
        vit.resp_rate_max,
        LEAST(lab.glucose_min, vit.glucose_min) AS glucose_min,
        GREATEST(lab.glucose_max, vit.glucose_max) AS glucose_max,
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
        lab.bilirubin_total_min AS bilirubin_min,
        lab.bilirubin_total_max AS bilirubin_max,
        uo.urineoutput,
        gcs.gcs_eyes,
        gcs.gcs_verbal,
        gcs.gcs_motor,
        gcs.gcs_unable,
        ox.pao2,
        ox.aado2,
        ab.acidbase_score,
        COALESCE(vn.vent, 0) AS vent,
        CASE
            WHEN lab.creatinine_max >= 1.5 AND uo.urineoutput < 410 AND ck.ckd = 0 THEN 1
            ELSE 0
        END AS arf
    FROM stays AS st
    LEFT JOIN mimiciv_derived.first_day_vitalsign AS vit ON st.stay_id = vit.stay_id
    LEFT JOIN mimiciv_derived.first_day_lab AS lab ON st.stay_id = lab.stay_id
    LEFT JOIN mimiciv_derived.first_day_urine_output AS uo ON st.stay_id = uo.stay_id
    LEFT JOIN mimiciv_derived.first_day_gcs AS gcs ON st.stay_id = gcs.stay_id
    LEFT JOIN oxygenation AS ox ON st.stay_id = ox.stay_id
    LEFT JOIN acid_base AS ab ON st.stay_id = ab.stay_id
    LEFT JOIN vent AS vn ON st.stay_id = vn.stay_id
    LEFT JOIN ckd AS ck ON st.hadm_id = ck.hadm_id
),
side_scores AS (
    SELECT
        *,
        CASE
            WHEN heart_rate_min < 40 THEN 8
            WHEN heart_rate_min < 50 THEN 5
            WHEN heart_rate_min < 100 THEN 0
            WHEN heart_rate_min < 110 THEN 1
            WHEN heart_rate_min < 120 THEN 5
            WHEN heart_rate_min < 140 THEN 7
            WHEN heart_rate_min < 155 THEN 13
            WHEN heart_rate_min >= 155 THEN 17
        END AS hr_score_min,
        CASE
            WHEN heart_rate_max < 40 THEN 8
            WHEN heart_rate_max < 50 THEN 5
            WHEN heart_rate_max < 100 THEN 0
            WHEN heart_rate_max < 110 THEN 1
            WHEN heart_rate_max < 120 THEN 5
            WHEN heart_rate_max < 140 THEN 7
            WHEN heart_rate_max < 155 THEN 13
            WHEN heart_rate_max >= 155 THEN 17
        END AS hr_score_max,
        CASE
            WHEN mbp_min < 40 THEN 23
            WHEN mbp_min < 60 THEN 15
            WHEN mbp_min < 70 THEN 7
            WHEN mbp_min < 80 THEN 6
            WHEN mbp_min < 100 THEN 0
            WHEN mbp_min < 120 THEN 4
            WHEN mbp_min < 130 THEN 7
            WHEN mbp_min < 140 THEN 9
            WHEN mbp_min >= 140 THEN 10
        END AS mbp_score_min,
        CASE
            WHEN mbp_max < 40 THEN 23
            WHEN mbp_max < 60 THEN 15
            WHEN mbp_max < 70 THEN 7
            WHEN mbp_max < 80 THEN 6
            WHEN mbp_max < 100 THEN 0
            WHEN mbp_max < 120 THEN 4
            WHEN mbp_max < 130 THEN 7
            WHEN mbp_max < 140 THEN 9
            WHEN mbp_max >= 140 THEN 10
        END AS mbp_score_max,
        CASE
            WHEN temperature_min < 33.0 THEN 20
            WHEN temperature_min < 33.5 THEN 16
            WHEN temperature_min < 34.0 THEN 13
            WHEN temperature_min < 35.0 THEN 8
            WHEN temperature_min < 36.0 THEN 2
            WHEN temperature_min < 40.0 THEN 0
            WHEN temperature_min >= 40.0 THEN 4
        END AS temp_score_min,
        CASE
            WHEN temperature_max < 33.0 THEN 20
            WHEN temperature_max < 33.5 THEN 16
            WHEN temperature_max < 34.0 THEN 13
            WHEN temperature_max < 35.0 THEN 8
            WHEN temperature_max < 36.0 THEN 2
            WHEN temperature_max < 40.0 THEN 0
            WHEN temperature_max >= 40.0 THEN 4
        END AS temp_score_max,
        CASE
            WHEN hematocrit_min < 41.0 THEN 3
            WHEN hematocrit_min < 50.0 THEN 0
            WHEN hematocrit_min >= 50.0 THEN 3
        END AS hematocrit_score_min,
        CASE
            WHEN hematocrit_max < 41.0 THEN 3
            WHEN hematocrit_max < 50.0 THEN 0
            WHEN hematocrit_max >= 50.0 THEN 3
        END AS hematocrit_score_max,
        CASE
            WHEN wbc_min < 1.0 THEN 19
            WHEN wbc_min < 3.0 THEN 5
            WHEN wbc_min < 20.0 THEN 0
            WHEN wbc_min < 25.0 THEN 1
            WHEN wbc_min >= 25.0 THEN 5
        END AS wbc_score_min,
        CASE
            WHEN wbc_max < 1.0 THEN 19
            WHEN wbc_max < 3.0 THEN 5
            WHEN wbc_max < 20.0 THEN 0
            WHEN wbc_max < 25.0 THEN 1
            WHEN wbc_max >= 25.0 THEN 5
        END AS wbc_score_max,
        CASE
            WHEN bun_min < 17.0 THEN 0
            WHEN bun_min < 20.0 THEN 2
            WHEN bun_min < 40.0 THEN 7
            WHEN bun_min < 80.0 THEN 11
            WHEN bun_min >= 80.0 THEN 12
        END AS bun_score_min,
        CASE
            WHEN bun_max < 17.0 THEN 0
            WHEN bun_max < 20.0 THEN 2
            WHEN bun_max < 40.0 THEN 7
            WHEN bun_max < 80.0 THEN 11
            WHEN bun_max >= 80.0 THEN 12
        END AS bun_score_max,
        CASE
            WHEN sodium_min < 120 THEN 3
            WHEN sodium_min < 135 THEN 2
            WHEN sodium_min < 155 THEN 0
            WHEN sodium_min >= 155 THEN 4
        END AS sodium_score_min,
        CASE
            WHEN sodium_max < 120 THEN 3
            WHEN sodium_max < 135 THEN 2
            WHEN sodium_max < 155 THEN 0
            WHEN sodium_max >= 155 THEN 4
        END AS sodium_score_max,
        CASE
            WHEN albumin_min < 2.0 THEN 11
            WHEN albumin_min < 2.5 THEN 6
            WHEN albumin_min < 4.5 THEN 0
            WHEN albumin_min >= 4.5 THEN 4
        END AS albumin_score_min,
        CASE
            WHEN albumin_max < 2.0 THEN 11
            WHEN albumin_max < 2.5 THEN 6
            WHEN albumin_max < 4.5 THEN 0
            WHEN albumin_max >= 4.5 THEN 4
        END AS albumin_score_max,
        CASE
            WHEN bilirubin_min < 2.0 THEN 0
            WHEN bilirubin_min < 3.0 THEN 5
            WHEN bilirubin_min < 5.0 THEN 6
            WHEN bilirubin_min < 8.0 THEN 8
            WHEN bilirubin_min >= 8.0 THEN 16
        END AS bilirubin_score_min,
        CASE
            WHEN bilirubin_max < 2.0 THEN 0
            WHEN bilirubin_max < 3.0 THEN 5
            WHEN bilirubin_max < 5.0 THEN 6
            WHEN bilirubin_max < 8.0 THEN 8
            WHEN bilirubin_max >= 8.0 THEN 16
        END AS bilirubin_score_max,
        CASE
            WHEN glucose_min < 40 THEN 8
            WHEN glucose_min < 60 THEN 9
            WHEN glucose_min < 200 THEN 0
            WHEN glucose_min < 350 THEN 3
            WHEN glucose_min >= 350 THEN 5
        END AS glucose_score_min,
        CASE
            WHEN glucose_max < 40 THEN 8
            WHEN glucose_max < 60 THEN 9
            WHEN glucose_max < 200 THEN 0
            WHEN glucose_max < 350 THEN 3
            WHEN glucose_max >= 350 THEN 5
        END AS glucose_score_max,
        CASE
            WHEN vent = 1 AND resp_rate_min < 14 THEN 0
            WHEN resp_rate_min < 6 THEN 17
            WHEN resp_rate_min < 12 THEN 8
            WHEN resp_rate_min < 14 THEN 7
            WHEN resp_rate_min < 25 THEN 0
            WHEN resp_rate_min < 35 THEN 6
            WHEN resp_rate_min < 40 THEN 9
            WHEN resp_rate_min < 50 THEN 11
            WHEN resp_rate_min >= 50 THEN 18
        END AS resp_rate_score_min,
        CASE
            WHEN vent = 1 AND resp_rate_max < 14 THEN 0
            WHEN resp_rate_max < 6 THEN 17
            WHEN resp_rate_max < 12 THEN 8
            WHEN resp_rate_max < 14 THEN 7
            WHEN resp_rate_max < 25 THEN 0
            WHEN resp_rate_max < 35 THEN 6
            WHEN resp_rate_max < 40 THEN 9
            WHEN resp_rate_max < 50 THEN 11
            WHEN resp_rate_max >= 50 THEN 18
        END AS resp_rate_score_max,
        CASE
            WHEN arf = 1 AND creatinine_min < 1.5 THEN 0
            WHEN arf = 1 AND creatinine_min >= 1.5 THEN 10
            WHEN creatinine_min < 0.5 THEN 3
            WHEN creatinine_min < 1.5 THEN 0
            WHEN creatinine_min < 1.95 THEN 4
            WHEN creatinine_min >= 1.95 THEN 7
        END AS creatinine_score_min,
        CASE
            WHEN arf = 1 AND creatinine_max < 1.5 THEN 0
            WHEN arf = 1 AND creatinine_max >= 1.5 THEN 10
            WHEN creatinine_max < 0.5 THEN 3
            WHEN creatinine_max < 1.5 THEN 0
            WHEN creatinine_max < 1.95 THEN 4
            WHEN creatinine_max >= 1.95 THEN 7
        END AS creatinine_score_max
    FROM inputs
),
components AS (
    SELECT
        subject_id,
        hadm_id,
        stay_id,
        CASE
            WHEN heart_rate_max IS NULL THEN NULL
            WHEN ABS(heart_rate_max - 75) > ABS(heart_rate_min - 75) THEN hr_score_max
            WHEN ABS(heart_rate_max - 75) < ABS(heart_rate_min - 75) THEN hr_score_min
            ELSE GREATEST(hr_score_max, hr_score_min)
        END AS hr_score,
        CASE
            WHEN mbp_max IS NULL THEN NULL
            WHEN ABS(mbp_max - 90) > ABS(mbp_min - 90) THEN mbp_score_max
            WHEN ABS(mbp_max - 90) < ABS(mbp_min - 90) THEN mbp_score_min
            ELSE GREATEST(mbp_score_max, mbp_score_min)
        END AS mbp_score,
        CASE
            WHEN temperature_max IS NULL THEN NULL
            WHEN ABS(temperature_max - 38) > ABS(temperature_min - 38) THEN temp_score_max
            WHEN ABS(temperature_max - 38) < ABS(temperature_min - 38) THEN temp_score_min
            ELSE GREATEST(temp_score_max, temp_score_min)
        END AS temp_score,
        CASE
            WHEN resp_rate_max IS NULL THEN NULL
            WHEN ABS(resp_rate_max - 19) > ABS(resp_rate_min - 19) THEN resp_rate_score_max
            WHEN ABS(resp_rate_max - 19) < ABS(resp_rate_min - 19) THEN resp_rate_score_min
            ELSE GREATEST(resp_rate_score_max, resp_rate_score_min)
        END AS resp_rate_score,
        CASE
            WHEN hematocrit_max IS NULL THEN NULL
            WHEN ABS(hematocrit_max - 45.5) > ABS(hematocrit_min - 45.5) THEN hematocrit_score_max
            WHEN ABS(hematocrit_max - 45.5) < ABS(hematocrit_min - 45.5) THEN hematocrit_score_min
            ELSE GREATEST(hematocrit_score_max, hematocrit_score_min)
        END AS hematocrit_score,
        CASE
            WHEN wbc_max IS NULL THEN NULL
            WHEN ABS(wbc_max - 11.5) > ABS(wbc_min - 11.5) THEN wbc_score_max
            WHEN ABS(wbc_max - 11.5) < ABS(wbc_min - 11.5) THEN wbc_score_min
            ELSE GREATEST(wbc_score_max, wbc_score_min)
        END AS wbc_score,
        CASE
            WHEN sodium_max IS NULL THEN NULL
            WHEN ABS(sodium_max - 145.5) > ABS(sodium_min - 145.5) THEN sodium_score_max
            WHEN ABS(sodium_max - 145.5) < ABS(sodium_min - 145.5) THEN sodium_score_min
            ELSE GREATEST(sodium_score_max, sodium_score_min)
        END AS sodium_score,
        CASE
            WHEN albumin_max IS NULL THEN NULL
            WHEN ABS(albumin_max - 3.5) > ABS(albumin_min - 3.5) THEN albumin_score_max
            WHEN ABS(albumin_max - 3.5) < ABS(albumin_min - 3.5) THEN albumin_score_min
            ELSE GREATEST(albumin_score_max, albumin_score_min)
        END AS albumin_score,
        CASE
            WHEN glucose_max IS NULL THEN NULL
            WHEN ABS(glucose_max - 130) > ABS(glucose_min - 130) THEN glucose_score_max
            WHEN ABS(glucose_max - 130) < ABS(glucose_min - 130) THEN glucose_score_min
            ELSE GREATEST(glucose_score_max, glucose_score_min)
        END AS glucose_score,
        CASE
            WHEN creatinine_max IS NULL THEN NULL
            WHEN arf = 1 THEN creatinine_score_max
            WHEN ABS(creatinine_max - 1) > ABS(creatinine_min - 1) THEN creatinine_score_max
            WHEN ABS(creatinine_max - 1) < ABS(creatinine_min - 1) THEN creatinine_score_min
            ELSE GREATEST(creatinine_score_max, creatinine_score_min)
        END AS creatinine_score,
        bun_score_max AS bun_score,
        bilirubin_score_max AS bilirubin_score,
        CASE
            WHEN pao2 IS NOT NULL THEN CASE WHEN pao2 < 50 THEN 15 WHEN pao2 < 70 THEN 5 WHEN pao2 < 80 THEN 2 ELSE 0 END
            WHEN aado2 IS NOT NULL
                THEN CASE WHEN aado2 < 100 THEN 0 WHEN aado2 < 250 THEN 7 WHEN aado2 < 350 THEN 9 WHEN aado2 < 500 THEN 11 ELSE 14 END
        END AS pao2_aado2_score,
        CASE
            WHEN urineoutput < 400 THEN 15
            WHEN urineoutput < 600 THEN 8
            WHEN urineoutput < 900 THEN 7
            WHEN urineoutput < 1500 THEN 5
            WHEN urineoutput < 2000 THEN 4
            WHEN urineoutput < 4000 THEN 0
            WHEN urineoutput >= 4000 THEN 1
        END AS uo_score,
        acidbase_score,
        CASE
            WHEN gcs_unable = 1 THEN 0
            WHEN gcs_eyes = 1 THEN
                CASE
                    WHEN gcs_verbal = 1 AND gcs_motor IN (1, 2) THEN 48
                    WHEN gcs_verbal = 1 AND gcs_motor IN (3, 4) THEN 33
                    WHEN gcs_verbal = 1 AND gcs_motor IN (5, 6) THEN 16
                    WHEN gcs_verbal IN (2, 3) AND gcs_motor IN (1, 2) THEN 29
                    WHEN gcs_verbal IN (2, 3) AND gcs_motor IN (3, 4) THEN 24
                END
            WHEN gcs_eyes > 1 THEN
                CASE
                    WHEN gcs_verbal = 1 AND gcs_motor IN (1, 2) THEN 29
                    WHEN gcs_verbal = 1 AND gcs_motor IN (3, 4) THEN 24
                    WHEN gcs_verbal = 1 AND gcs_motor IN (5, 6) THEN 15
                    WHEN gcs_verbal IN (2, 3) AND gcs_motor IN (1, 2) THEN 29
                    WHEN gcs_verbal IN (2, 3) AND gcs_motor IN (3, 4) THEN 24
                    WHEN gcs_verbal IN (2, 3) AND gcs_motor = 5 THEN 13
                    WHEN gcs_verbal IN (2, 3) AND gcs_motor = 6 THEN 10
                    WHEN gcs_verbal = 4 AND gcs_motor IN (1, 2, 3, 4) THEN 13
                    WHEN gcs_verbal = 4 AND gcs_motor = 5 THEN 8
                    WHEN gcs_verbal = 4 AND gcs_motor = 6 THEN 3
                    WHEN gcs_verbal = 5 AND gcs_motor IN (1, 2, 3, 4, 5) THEN 3
                    WHEN gcs_verbal = 5 AND gcs_motor = 6 THEN 0
                END
        END AS gcs_score
    FROM side_scores
),
totals AS (
    SELECT
        *,
        COALESCE(hr_score, 0)
        + COALESCE(mbp_score, 0)
        + COALESCE(temp_score, 0)
        + COALESCE(resp_rate_score, 0)
        + COALESCE(pao2_aado2_score, 0)
        + COALESCE(hematocrit_score, 0)
        + COALESCE(wbc_score, 0)
        + COALESCE(creatinine_score, 0)
        + COALESCE(uo_score, 0)
        + COALESCE(bun_score, 0)
        + COALESCE(sodium_score, 0)
        + COALESCE(albumin_score, 0)
        + COALESCE(bilirubin_score, 0)
        + COALESCE(glucose_score, 0)
        + COALESCE(acidbase_score, 0)
        + COALESCE(gcs_score, 0) AS apsiii
    FROM components
)
SELECT
    subject_id,
    hadm_id,
    stay_id,
    apsiii,
    1 / (1 + EXP(-(-4.4360 + 0.04726 * apsiii))) AS apsiii_prob,
    hr_score,
    mbp_score,
    temp_score,
    resp_rate_score,
    pao2_aado2_score,
    hematocrit_score,
    wbc_score,
    creatinine_score,
    uo_score,
    bun_score,
    sodium_score,
    albumin_score,
    bilirubin_score,
    glucose_score,
    acidbase_score,
    gcs_score
FROM totals
