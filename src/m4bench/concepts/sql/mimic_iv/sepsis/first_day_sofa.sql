-- first_day_sofa: SOFA score over the first ICU day (6 h before intime to 24 h after), with its components
-- Grain: one row per mimiciv_icu.icustays row
-- Inputs: mimiciv_icu.icustays, bg, ventilation, first_day_vitalsign, first_day_lab, first_day_urine_output,
--   first_day_gcs, norepinephrine, epinephrine, dopamine, dobutamine
-- Convention: P/F ratios of blood gases of any specimen of the subject charted in [intime - 6 h, intime + 24 h],
--   "vent" when inside an InvasiveVent episode of the stay (inclusive); vasopressor rates are the highest of
--   infusions of the stay starting in [intime - 6 h, intime + 24 h]. Respiration: vent < 100: 4, vent < 200: 3,
--   novent < 300: 2, novent < 400: 1. Cardiovascular 3 for any non-null epinephrine or norepinephrine rate up
--   to 0.1. A component is NULL when its inputs are missing; sofa counts NULL as 0.
WITH window_bounds AS (
    SELECT
        subject_id,
        hadm_id,
        stay_id,
        intime - INTERVAL 6 HOUR AS starttime,
        intime + INTERVAL 1 DAY AS endtime
    FROM mimiciv_icu.icustays
),
pafi AS (
    SELECT
        wb.stay_id,
        MIN(CASE WHEN vd.stay_id IS NULL THEN bg.pao2fio2ratio END) AS pao2fio2ratio_novent,
        MIN(CASE WHEN vd.stay_id IS NOT NULL THEN bg.pao2fio2ratio END) AS pao2fio2ratio_vent
    FROM window_bounds AS wb
    INNER JOIN mimiciv_derived.bg AS bg
        ON wb.subject_id = bg.subject_id
        AND bg.charttime >= wb.starttime
        AND bg.charttime <= wb.endtime
    LEFT JOIN mimiciv_derived.ventilation AS vd
        ON wb.stay_id = vd.stay_id
        AND bg.charttime >= vd.starttime
        AND bg.charttime <= vd.endtime
        AND vd.ventilation_status = 'InvasiveVent'
    GROUP BY wb.stay_id
),
infusions AS (
    SELECT stay_id, starttime, vaso_rate, 'norepinephrine' AS agent FROM mimiciv_derived.norepinephrine
    UNION ALL
    SELECT stay_id, starttime, vaso_rate, 'epinephrine' AS agent FROM mimiciv_derived.epinephrine
    UNION ALL
    SELECT stay_id, starttime, vaso_rate, 'dopamine' AS agent FROM mimiciv_derived.dopamine
    UNION ALL
    SELECT stay_id, starttime, vaso_rate, 'dobutamine' AS agent FROM mimiciv_derived.dobutamine
),
vaso AS (
    SELECT
        wb.stay_id,
        MAX(CASE WHEN inf.agent = 'norepinephrine' THEN inf.vaso_rate END) AS rate_norepinephrine,
        MAX(CASE WHEN inf.agent = 'epinephrine' THEN inf.vaso_rate END) AS rate_epinephrine,
        MAX(CASE WHEN inf.agent = 'dopamine' THEN inf.vaso_rate END) AS rate_dopamine,
        MAX(CASE WHEN inf.agent = 'dobutamine' THEN inf.vaso_rate END) AS rate_dobutamine
    FROM window_bounds AS wb
    INNER JOIN infusions AS inf
        ON wb.stay_id = inf.stay_id
        AND inf.starttime >= wb.starttime
        AND inf.starttime <= wb.endtime
    GROUP BY wb.stay_id
),
inputs AS (
    SELECT
        wb.subject_id,
        wb.hadm_id,
        wb.stay_id,
        pf.pao2fio2ratio_novent,
        pf.pao2fio2ratio_vent,
        va.rate_norepinephrine,
        va.rate_epinephrine,
        va.rate_dopamine,
        va.rate_dobutamine,
        vit.mbp_min,
        gcs.gcs_min,
        uo.urineoutput,
        lab.platelets_min,
        lab.bilirubin_total_max AS bilirubin_max,
        lab.creatinine_max
    FROM window_bounds AS wb
    LEFT JOIN pafi AS pf ON wb.stay_id = pf.stay_id
    LEFT JOIN vaso AS va ON wb.stay_id = va.stay_id
    LEFT JOIN mimiciv_derived.first_day_vitalsign AS vit ON wb.stay_id = vit.stay_id
    LEFT JOIN mimiciv_derived.first_day_gcs AS gcs ON wb.stay_id = gcs.stay_id
    LEFT JOIN mimiciv_derived.first_day_urine_output AS uo ON wb.stay_id = uo.stay_id
    LEFT JOIN mimiciv_derived.first_day_lab AS lab ON wb.stay_id = lab.stay_id
),
components AS (
    SELECT
        subject_id,
        hadm_id,
        stay_id,
        CASE
            WHEN pao2fio2ratio_vent < 100 THEN 4
            WHEN pao2fio2ratio_vent < 200 THEN 3
            WHEN pao2fio2ratio_novent < 300 THEN 2
            WHEN pao2fio2ratio_novent < 400 THEN 1
            WHEN COALESCE(pao2fio2ratio_vent, pao2fio2ratio_novent) IS NULL THEN NULL
            ELSE 0
        END AS respiration,
        CASE
            WHEN platelets_min < 20 THEN 4
            WHEN platelets_min < 50 THEN 3
            WHEN platelets_min < 100 THEN 2
            WHEN platelets_min < 150 THEN 1
            WHEN platelets_min IS NULL THEN NULL
            ELSE 0
        END AS coagulation,
        CASE
            WHEN bilirubin_max >= 12.0 THEN 4
            WHEN bilirubin_max >= 6.0 THEN 3
            WHEN bilirubin_max >= 2.0 THEN 2
            WHEN bilirubin_max >= 1.2 THEN 1
            WHEN bilirubin_max IS NULL THEN NULL
            ELSE 0
        END AS liver,
        CASE
            WHEN rate_dopamine > 15 OR rate_epinephrine > 0.1 OR rate_norepinephrine > 0.1 THEN 4
            WHEN rate_dopamine > 5 OR rate_epinephrine <= 0.1 OR rate_norepinephrine <= 0.1 THEN 3
            WHEN rate_dopamine > 0 OR rate_dobutamine > 0 THEN 2
            WHEN mbp_min < 70 THEN 1
            WHEN
                COALESCE(mbp_min, rate_dopamine, rate_dobutamine, rate_epinephrine, rate_norepinephrine) IS NULL
                THEN NULL
            ELSE 0
        END AS cardiovascular,
        CASE
            WHEN gcs_min >= 13 AND gcs_min <= 14 THEN 1
            WHEN gcs_min >= 10 AND gcs_min <= 12 THEN 2
            WHEN gcs_min >= 6 AND gcs_min <= 9 THEN 3
            WHEN gcs_min < 6 THEN 4
            WHEN gcs_min IS NULL THEN NULL
            ELSE 0
        END AS cns,
        CASE
            WHEN creatinine_max >= 5.0 THEN 4
            WHEN urineoutput < 200 THEN 4
            WHEN creatinine_max >= 3.5 AND creatinine_max < 5.0 THEN 3
            WHEN urineoutput < 500 THEN 3
            WHEN creatinine_max >= 2.0 AND creatinine_max < 3.5 THEN 2
            WHEN creatinine_max >= 1.2 AND creatinine_max < 2.0 THEN 1
            WHEN COALESCE(urineoutput, creatinine_max) IS NULL THEN NULL
            ELSE 0
        END AS renal
    FROM inputs
)
SELECT
    subject_id,
    hadm_id,
    stay_id,
    COALESCE(respiration, 0)
    + COALESCE(coagulation, 0)
    + COALESCE(liver, 0)
    + COALESCE(cardiovascular, 0)
    + COALESCE(cns, 0)
    + COALESCE(renal, 0) AS sofa,
    respiration,
    coagulation,
    liver,
    cardiovascular,
    cns,
    renal
FROM components
