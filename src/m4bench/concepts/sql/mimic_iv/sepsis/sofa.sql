-- sofa: hourly SOFA components and their rolling 24-hour worst values for every ICU hour
-- Grain: one row per icustay_hourly row with hr >= 0 (stay_id, hr); hours -24..-1 only feed the rolling window
-- Inputs: icustay_hourly, mimiciv_icu.icustays, bg, ventilation, vitalsign, gcs, enzyme, chemistry,
--   complete_blood_count, urine_output_rate, norepinephrine, epinephrine, dopamine, dobutamine
-- Convention: hour hr covers (endtime - 1 h, endtime]. Arterial ('ART.') gases of the stay's subject are
--   "vent" when charted inside an InvasiveVent episode of the stay (both ends inclusive); bilirubin,
--   creatinine and platelets are joined by hadm_id; uo_24hr is the largest urine_output_rate 24 h volume
--   projected to 24 h (urineoutput_24hr / uo_tm_24hr * 24) among rows with 22 <= uo_tm_24hr <= 30; a
--   vasopressor rate counts when the infusion runs at the hour's end (starttime < endtime <= its endtime).
-- Convention: an hourly component is NULL when all its inputs are NULL; X_24hours is the worst value over
--   the hour and the 23 preceding hour rows (NULL as 0). Ventilated P/F of 200-399 scores 2/1; any non-null
--   epinephrine or norepinephrine rate up to 0.1 (0 included) scores cardiovascular 3.
WITH grid AS (
    SELECT
        ih.stay_id,
        ie.subject_id,
        ie.hadm_id,
        ih.hr,
        ih.endtime - INTERVAL 1 HOUR AS starttime,
        ih.endtime
    FROM mimiciv_derived.icustay_hourly AS ih
    INNER JOIN mimiciv_icu.icustays AS ie ON ih.stay_id = ie.stay_id
),
-- Each charted event belongs to the grid hour whose end is the first whole hour at or after it.
gas AS (
    SELECT
        ie.stay_id,
        CASE
            WHEN bg.charttime = DATE_TRUNC('HOUR', bg.charttime) THEN bg.charttime
            ELSE DATE_TRUNC('HOUR', bg.charttime) + INTERVAL 1 HOUR
        END AS hour_end,
        bg.pao2fio2ratio,
        EXISTS (
            SELECT 1
            FROM mimiciv_derived.ventilation AS vd
            WHERE
                vd.stay_id = ie.stay_id
                AND vd.ventilation_status = 'InvasiveVent'
                AND bg.charttime >= vd.starttime
                AND bg.charttime <= vd.endtime
        ) AS on_vent
    FROM mimiciv_icu.icustays AS ie
    INNER JOIN mimiciv_derived.bg AS bg ON ie.subject_id = bg.subject_id
    WHERE bg.specimen = 'ART.'
),
gas_hourly AS (
    SELECT
        stay_id,
        hour_end,
        MIN(CASE WHEN NOT on_vent THEN pao2fio2ratio END) AS pao2fio2ratio_novent,
        MIN(CASE WHEN on_vent THEN pao2fio2ratio END) AS pao2fio2ratio_vent
    FROM gas
    GROUP BY stay_id, hour_end
),
vital_hourly AS (
    SELECT
        stay_id,
        CASE
            WHEN charttime = DATE_TRUNC('HOUR', charttime) THEN charttime
            ELSE DATE_TRUNC('HOUR', charttime) + INTERVAL 1 HOUR
        END AS hour_end,
        MIN(mbp) AS meanbp_min
    FROM mimiciv_derived.vitalsign
    GROUP BY ALL
),
gcs_hourly AS (
    SELECT
        stay_id,
        CASE
            WHEN charttime = DATE_TRUNC('HOUR', charttime) THEN charttime
            ELSE DATE_TRUNC('HOUR', charttime) + INTERVAL 1 HOUR
        END AS hour_end,
        MIN(gcs) AS gcs_min
    FROM mimiciv_derived.gcs
    GROUP BY ALL
),
lab_values AS (
    SELECT hadm_id, charttime, bilirubin_total AS bilirubin, NULL::DOUBLE AS creatinine, NULL::DOUBLE AS platelet
    FROM mimiciv_derived.enzyme
    UNION ALL
    SELECT hadm_id, charttime, NULL AS bilirubin, creatinine, NULL AS platelet
    FROM mimiciv_derived.chemistry
    UNION ALL
    SELECT hadm_id, charttime, NULL AS bilirubin, NULL AS creatinine, platelet
    FROM mimiciv_derived.complete_blood_count
),
lab_hourly AS (
    SELECT
        hadm_id,
        CASE
            WHEN charttime = DATE_TRUNC('HOUR', charttime) THEN charttime
            ELSE DATE_TRUNC('HOUR', charttime) + INTERVAL 1 HOUR
        END AS hour_end,
        MAX(bilirubin) AS bilirubin_max,
        MAX(creatinine) AS creatinine_max,
        MIN(platelet) AS platelet_min
    FROM lab_values
    WHERE hadm_id IS NOT NULL
    GROUP BY ALL
),
urine_hourly AS (
    SELECT
        stay_id,
        CASE
            WHEN charttime = DATE_TRUNC('HOUR', charttime) THEN charttime
            ELSE DATE_TRUNC('HOUR', charttime) + INTERVAL 1 HOUR
        END AS hour_end,
        MAX(urineoutput_24hr / uo_tm_24hr * 24) AS uo_24hr
    FROM mimiciv_derived.urine_output_rate
    WHERE uo_tm_24hr >= 22 AND uo_tm_24hr <= 30
    GROUP BY ALL
),
infusions AS (
    SELECT stay_id, starttime, endtime, vaso_rate, 'norepinephrine' AS agent FROM mimiciv_derived.norepinephrine
    UNION ALL
    SELECT stay_id, starttime, endtime, vaso_rate, 'epinephrine' AS agent FROM mimiciv_derived.epinephrine
    UNION ALL
    SELECT stay_id, starttime, endtime, vaso_rate, 'dopamine' AS agent FROM mimiciv_derived.dopamine
    UNION ALL
    SELECT stay_id, starttime, endtime, vaso_rate, 'dobutamine' AS agent FROM mimiciv_derived.dobutamine
),
-- Whole hours h with starttime < h <= endtime: the hour ends at which the infusion is running.
infusion_hours AS (
    SELECT
        stay_id,
        agent,
        vaso_rate,
        UNNEST(
            GENERATE_SERIES(
                DATE_TRUNC('HOUR', starttime) + INTERVAL 1 HOUR, DATE_TRUNC('HOUR', endtime), INTERVAL 1 HOUR
            )
        ) AS hour_end
    FROM infusions
    WHERE endtime > starttime
),
vaso_hourly AS (
    SELECT
        stay_id,
        hour_end,
        MAX(CASE WHEN agent = 'epinephrine' THEN vaso_rate END) AS rate_epinephrine,
        MAX(CASE WHEN agent = 'norepinephrine' THEN vaso_rate END) AS rate_norepinephrine,
        MAX(CASE WHEN agent = 'dopamine' THEN vaso_rate END) AS rate_dopamine,
        MAX(CASE WHEN agent = 'dobutamine' THEN vaso_rate END) AS rate_dobutamine
    FROM infusion_hours
    GROUP BY stay_id, hour_end
),
hourly_inputs AS (
    SELECT
        g.stay_id,
        g.hr,
        g.starttime,
        g.endtime,
        ga.pao2fio2ratio_novent,
        ga.pao2fio2ratio_vent,
        va.rate_epinephrine,
        va.rate_norepinephrine,
        va.rate_dopamine,
        va.rate_dobutamine,
        vi.meanbp_min,
        gc.gcs_min,
        ur.uo_24hr,
        lb.bilirubin_max,
        lb.creatinine_max,
        lb.platelet_min
    FROM grid AS g
    LEFT JOIN gas_hourly AS ga ON g.stay_id = ga.stay_id AND g.endtime = ga.hour_end
    LEFT JOIN vaso_hourly AS va ON g.stay_id = va.stay_id AND g.endtime = va.hour_end
    LEFT JOIN vital_hourly AS vi ON g.stay_id = vi.stay_id AND g.endtime = vi.hour_end
    LEFT JOIN gcs_hourly AS gc ON g.stay_id = gc.stay_id AND g.endtime = gc.hour_end
    LEFT JOIN urine_hourly AS ur ON g.stay_id = ur.stay_id AND g.endtime = ur.hour_end
    LEFT JOIN lab_hourly AS lb ON g.hadm_id = lb.hadm_id AND g.endtime = lb.hour_end
),
hourly_scores AS (
    SELECT
        *,
        CASE
            WHEN pao2fio2ratio_vent < 100 THEN 4
            WHEN pao2fio2ratio_vent < 200 THEN 3
            WHEN pao2fio2ratio_novent < 300 THEN 2
            WHEN pao2fio2ratio_vent < 300 THEN 2
            WHEN pao2fio2ratio_novent < 400 THEN 1
            WHEN pao2fio2ratio_vent < 400 THEN 1
            WHEN pao2fio2ratio_vent IS NULL AND pao2fio2ratio_novent IS NULL THEN NULL
            ELSE 0
        END AS respiration,
        CASE
            WHEN platelet_min < 20 THEN 4
            WHEN platelet_min < 50 THEN 3
            WHEN platelet_min < 100 THEN 2
            WHEN platelet_min < 150 THEN 1
            WHEN platelet_min IS NULL THEN NULL
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
            WHEN meanbp_min < 70 THEN 1
            WHEN
                COALESCE(meanbp_min, rate_dopamine, rate_dobutamine, rate_epinephrine, rate_norepinephrine)
                IS NULL
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
            WHEN uo_24hr < 200 THEN 4
            WHEN creatinine_max >= 3.5 AND creatinine_max < 5.0 THEN 3
            WHEN uo_24hr < 500 THEN 3
            WHEN creatinine_max >= 2.0 AND creatinine_max < 3.5 THEN 2
            WHEN creatinine_max >= 1.2 AND creatinine_max < 2.0 THEN 1
            WHEN COALESCE(uo_24hr, creatinine_max) IS NULL THEN NULL
            ELSE 0
        END AS renal
    FROM hourly_inputs
),
rolling AS (
    SELECT
        *,
        COALESCE(MAX(respiration) OVER day_window, 0) AS respiration_24hours,
        COALESCE(MAX(coagulation) OVER day_window, 0) AS coagulation_24hours,
        COALESCE(MAX(liver) OVER day_window, 0) AS liver_24hours,
        COALESCE(MAX(cardiovascular) OVER day_window, 0) AS cardiovascular_24hours,
        COALESCE(MAX(cns) OVER day_window, 0) AS cns_24hours,
        COALESCE(MAX(renal) OVER day_window, 0) AS renal_24hours
    FROM hourly_scores
    WINDOW day_window AS (PARTITION BY stay_id ORDER BY hr ROWS BETWEEN 23 PRECEDING AND CURRENT ROW)
)
SELECT
    stay_id,
    hr,
    starttime,
    endtime,
    pao2fio2ratio_novent,
    pao2fio2ratio_vent,
    rate_epinephrine,
    rate_norepinephrine,
    rate_dopamine,
    rate_dobutamine,
    meanbp_min,
    gcs_min,
    uo_24hr,
    bilirubin_max,
    creatinine_max,
    platelet_min,
    respiration,
    coagulation,
    liver,
    cardiovascular,
    cns,
    renal,
    respiration_24hours,
    coagulation_24hours,
    liver_24hours,
    cardiovascular_24hours,
    cns_24hours,
    renal_24hours,
    respiration_24hours
    + coagulation_24hours
    + liver_24hours
    + cardiovascular_24hours
    + cns_24hours
    + renal_24hours AS sofa_24hours
FROM rolling
WHERE hr >= 0
