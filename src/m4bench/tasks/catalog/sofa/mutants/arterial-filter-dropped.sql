-- KNOWN WRONG (mutant arterial-filter-dropped of reference.sql): venous and mixed gases count toward the P/F ratio: the arterial specimen filter is dropped.
-- SOFA score over the first ICU day (MIMIC-IV).
-- Reads: mimiciv_icu.icustays; mimiciv_derived.bg (arterial gases, by subject),
-- mimiciv_derived.ventilation (invasive ventilation episodes), the first-day aggregates of
-- laboratory panels, vital signs, GCS and urine output, and the norepinephrine,
-- epinephrine, dopamine and dobutamine infusion tables. Grain: one row per ICU stay.
-- Window [intime - 6 h, intime + 24 h] for gases, labs, vitals, GCS and infusion starts;
-- urine output over [intime, intime + 24 h]. A component with no data scores 0.
WITH gases AS (
    SELECT
        ie.stay_id,
        bg.charttime,
        bg.pao2fio2ratio,
        MAX(CASE WHEN vent.stay_id IS NOT NULL THEN 1 ELSE 0 END) AS on_vent
    FROM mimiciv_icu.icustays AS ie
    INNER JOIN mimiciv_derived.bg AS bg
        ON bg.subject_id = ie.subject_id
        AND bg.charttime >= ie.intime - INTERVAL 6 HOUR
        AND bg.charttime <= ie.intime + INTERVAL 24 HOUR
    LEFT JOIN mimiciv_derived.ventilation AS vent
        ON vent.stay_id = ie.stay_id
        AND vent.ventilation_status = 'InvasiveVent'
        AND bg.charttime >= vent.starttime
        AND bg.charttime <= vent.endtime
    GROUP BY ie.stay_id, bg.charttime, bg.pao2fio2ratio
),
pafi AS (
    SELECT
        stay_id,
        MIN(CASE WHEN on_vent = 0 THEN pao2fio2ratio END) AS pao2fio2_novent_min,
        MIN(CASE WHEN on_vent = 1 THEN pao2fio2ratio END) AS pao2fio2_vent_min
    FROM gases
    GROUP BY stay_id
),
norepi AS (
    SELECT ie.stay_id, MAX(x.vaso_rate) AS rate
    FROM mimiciv_icu.icustays AS ie
    INNER JOIN mimiciv_derived.norepinephrine AS x
        ON x.stay_id = ie.stay_id
        AND x.starttime >= ie.intime - INTERVAL 6 HOUR
        AND x.starttime <= ie.intime + INTERVAL 24 HOUR
    GROUP BY ie.stay_id
),
epi AS (
    SELECT ie.stay_id, MAX(x.vaso_rate) AS rate
    FROM mimiciv_icu.icustays AS ie
    INNER JOIN mimiciv_derived.epinephrine AS x
        ON x.stay_id = ie.stay_id
        AND x.starttime >= ie.intime - INTERVAL 6 HOUR
        AND x.starttime <= ie.intime + INTERVAL 24 HOUR
    GROUP BY ie.stay_id
),
dopa AS (
    SELECT ie.stay_id, MAX(x.vaso_rate) AS rate
    FROM mimiciv_icu.icustays AS ie
    INNER JOIN mimiciv_derived.dopamine AS x
        ON x.stay_id = ie.stay_id
        AND x.starttime >= ie.intime - INTERVAL 6 HOUR
        AND x.starttime <= ie.intime + INTERVAL 24 HOUR
    GROUP BY ie.stay_id
),
dobu AS (
    SELECT ie.stay_id, MAX(x.vaso_rate) AS rate
    FROM mimiciv_icu.icustays AS ie
    INNER JOIN mimiciv_derived.dobutamine AS x
        ON x.stay_id = ie.stay_id
        AND x.starttime >= ie.intime - INTERVAL 6 HOUR
        AND x.starttime <= ie.intime + INTERVAL 24 HOUR
    GROUP BY ie.stay_id
),
inputs AS (
    SELECT
        ie.subject_id,
        ie.hadm_id,
        ie.stay_id,
        pafi.pao2fio2_novent_min,
        pafi.pao2fio2_vent_min,
        lab.platelets_min,
        lab.bilirubin_total_max,
        lab.creatinine_max,
        vital.mbp_min,
        gcs.gcs_min,
        uo.urineoutput,
        norepi.rate AS rate_norepinephrine,
        epi.rate AS rate_epinephrine,
        dopa.rate AS rate_dopamine,
        dobu.rate AS rate_dobutamine
    FROM mimiciv_icu.icustays AS ie
    LEFT JOIN pafi ON pafi.stay_id = ie.stay_id
    LEFT JOIN mimiciv_derived.first_day_lab AS lab ON lab.stay_id = ie.stay_id
    LEFT JOIN mimiciv_derived.first_day_vitalsign AS vital ON vital.stay_id = ie.stay_id
    LEFT JOIN mimiciv_derived.first_day_gcs AS gcs ON gcs.stay_id = ie.stay_id
    LEFT JOIN mimiciv_derived.first_day_urine_output AS uo ON uo.stay_id = ie.stay_id
    LEFT JOIN norepi ON norepi.stay_id = ie.stay_id
    LEFT JOIN epi ON epi.stay_id = ie.stay_id
    LEFT JOIN dopa ON dopa.stay_id = ie.stay_id
    LEFT JOIN dobu ON dobu.stay_id = ie.stay_id
),
scored AS (
    SELECT
        subject_id,
        hadm_id,
        stay_id,
        CASE
            WHEN pao2fio2_vent_min < 100 THEN 4
            WHEN pao2fio2_vent_min < 200 THEN 3
            WHEN pao2fio2_novent_min < 300 THEN 2
            WHEN pao2fio2_novent_min < 400 THEN 1
            ELSE 0
        END AS respiration,
        CASE
            WHEN platelets_min < 20 THEN 4
            WHEN platelets_min < 50 THEN 3
            WHEN platelets_min < 100 THEN 2
            WHEN platelets_min < 150 THEN 1
            ELSE 0
        END AS coagulation,
        CASE
            WHEN bilirubin_total_max >= 12.0 THEN 4
            WHEN bilirubin_total_max >= 6.0 THEN 3
            WHEN bilirubin_total_max >= 2.0 THEN 2
            WHEN bilirubin_total_max >= 1.2 THEN 1
            ELSE 0
        END AS liver,
        CASE
            WHEN rate_dopamine > 15 OR rate_epinephrine > 0.1 OR rate_norepinephrine > 0.1 THEN 4
            WHEN rate_dopamine > 5
                OR (rate_epinephrine > 0 AND rate_epinephrine <= 0.1)
                OR (rate_norepinephrine > 0 AND rate_norepinephrine <= 0.1) THEN 3
            WHEN rate_dopamine > 0 OR rate_dobutamine > 0 THEN 2
            WHEN mbp_min < 70 THEN 1
            ELSE 0
        END AS cardiovascular,
        CASE
            WHEN gcs_min >= 13 AND gcs_min <= 14 THEN 1
            WHEN gcs_min >= 10 AND gcs_min <= 12 THEN 2
            WHEN gcs_min >= 6 AND gcs_min <= 9 THEN 3
            WHEN gcs_min < 6 THEN 4
            ELSE 0
        END AS cns,
        CASE
            WHEN creatinine_max >= 5.0 THEN 4
            WHEN urineoutput < 200 THEN 4
            WHEN creatinine_max >= 3.5 AND creatinine_max < 5.0 THEN 3
            WHEN urineoutput < 500 THEN 3
            WHEN creatinine_max >= 2.0 AND creatinine_max < 3.5 THEN 2
            WHEN creatinine_max >= 1.2 AND creatinine_max < 2.0 THEN 1
            ELSE 0
        END AS renal
    FROM inputs
)
SELECT
    subject_id,
    hadm_id,
    stay_id,
    CAST(respiration + coagulation + liver + cardiovascular + cns + renal AS INTEGER) AS sofa,
    CAST(respiration AS INTEGER) AS respiration,
    CAST(coagulation AS INTEGER) AS coagulation,
    CAST(liver AS INTEGER) AS liver,
    CAST(cardiovascular AS INTEGER) AS cardiovascular,
    CAST(cns AS INTEGER) AS cns,
    CAST(renal AS INTEGER) AS renal
FROM scored
