-- sapsii: Simplified Acute Physiology Score II over the first 24 ICU hours, with components and probability
-- Grain: one row per mimiciv_icu.icustays row that joins to its admission
-- Inputs: mimiciv_icu.icustays, mimiciv_hosp.admissions, mimiciv_hosp.services, mimiciv_hosp.diagnoses_icd,
--   mimiciv_icu.chartevents (226732 O2 device), age, bg, chemistry, complete_blood_count, enzyme, gcs,
--   vitalsign, urine_output, ventilation
-- Convention: every time-based input uses (intime, intime + 24 h]; vitals and labs are joined by subject_id,
--   GCS and urine by stay_id. The P/F ratio counts arterial gases taken during an InvasiveVent episode
--   (starttime < t <= endtime) or inside a CPAP window (O2-device values matching 'cpap mask' or 'bipap' in
--   the first day, [first - 1 h, last + 4 h] clipped to the day, matched by subject_id).
-- Convention: admission type from the first services row (transfertime, NULL first): scheduled surgical
--   = ELECTIVE with a service containing 'surg'; unscheduled surgical = other type with such a service;
--   otherwise medical. Components are NULL when their inputs are missing; sapsii counts NULL as 0.
WITH stay_window AS (
    SELECT
        ie.subject_id,
        ie.hadm_id,
        ie.stay_id,
        ie.intime AS starttime,
        ie.intime + INTERVAL 1 DAY AS endtime
    FROM mimiciv_icu.icustays AS ie
),
cpap AS (
    SELECT
        sw.subject_id,
        sw.stay_id,
        GREATEST(MIN(ce.charttime) - INTERVAL 1 HOUR, MIN(sw.starttime)) AS starttime,
        LEAST(MAX(ce.charttime) + INTERVAL 4 HOUR, MIN(sw.endtime)) AS endtime
    FROM stay_window AS sw
    INNER JOIN mimiciv_icu.chartevents AS ce
        ON sw.stay_id = ce.stay_id
        AND ce.charttime > sw.starttime
        AND ce.charttime <= sw.endtime
    WHERE ce.itemid = 226732 AND REGEXP_MATCHES(LOWER(ce.value), '(cpap mask|bipap)')
    GROUP BY sw.subject_id, sw.stay_id
),
supported_gases AS (
    SELECT sw.stay_id, bg.charttime, bg.pao2fio2ratio
    FROM stay_window AS sw
    INNER JOIN mimiciv_derived.bg AS bg
        ON sw.subject_id = bg.subject_id
        AND bg.charttime > sw.starttime
        AND bg.charttime <= sw.endtime
    WHERE
        bg.specimen = 'ART.'
        AND (
            EXISTS (
                SELECT 1
                FROM mimiciv_derived.ventilation AS vd
                WHERE
                    vd.stay_id = sw.stay_id
                    AND vd.ventilation_status = 'InvasiveVent'
                    AND bg.charttime > vd.starttime
                    AND bg.charttime <= vd.endtime
            )
            OR EXISTS (
                SELECT 1
                FROM cpap AS cp
                WHERE cp.subject_id = sw.subject_id AND bg.charttime > cp.starttime AND bg.charttime <= cp.endtime
            )
        )
),
pafi AS (
    SELECT stay_id, MIN(pao2fio2ratio) AS pao2fio2_vent_min
    FROM supported_gases
    GROUP BY stay_id
),
vitals AS (
    SELECT
        sw.stay_id,
        MIN(vs.heart_rate) AS heartrate_min,
        MAX(vs.heart_rate) AS heartrate_max,
        MIN(vs.sbp) AS sysbp_min,
        MAX(vs.sbp) AS sysbp_max,
        MIN(vs.temperature) AS tempc_min,
        MAX(vs.temperature) AS tempc_max
    FROM stay_window AS sw
    INNER JOIN mimiciv_derived.vitalsign AS vs
        ON sw.subject_id = vs.subject_id AND vs.charttime > sw.starttime AND vs.charttime <= sw.endtime
    GROUP BY sw.stay_id
),
labs AS (
    SELECT
        sw.stay_id,
        MAX(ch.bun) AS bun_max,
        MIN(ch.potassium) AS potassium_min,
        MAX(ch.potassium) AS potassium_max,
        MIN(ch.sodium) AS sodium_min,
        MAX(ch.sodium) AS sodium_max,
        MIN(ch.bicarbonate) AS bicarbonate_min
    FROM stay_window AS sw
    INNER JOIN mimiciv_derived.chemistry AS ch
        ON sw.subject_id = ch.subject_id AND ch.charttime > sw.starttime AND ch.charttime <= sw.endtime
    GROUP BY sw.stay_id
),
counts AS (
    SELECT sw.stay_id, MIN(cbc.wbc) AS wbc_min, MAX(cbc.wbc) AS wbc_max
    FROM stay_window AS sw
    INNER JOIN mimiciv_derived.complete_blood_count AS cbc
        ON sw.subject_id = cbc.subject_id AND cbc.charttime > sw.starttime AND cbc.charttime <= sw.endtime
    GROUP BY sw.stay_id
),
liver AS (
    SELECT sw.stay_id, MAX(enz.bilirubin_total) AS bilirubin_max
    FROM stay_window AS sw
    INNER JOIN mimiciv_derived.enzyme AS enz
        ON sw.subject_id = enz.subject_id AND enz.charttime > sw.starttime AND enz.charttime <= sw.endtime
    GROUP BY sw.stay_id
),
neuro AS (
    SELECT sw.stay_id, MIN(gc.gcs) AS mingcs
    FROM stay_window AS sw
    INNER JOIN mimiciv_derived.gcs AS gc
        ON sw.stay_id = gc.stay_id AND gc.charttime > sw.starttime AND gc.charttime <= sw.endtime
    GROUP BY sw.stay_id
),
urine AS (
    SELECT sw.stay_id, SUM(uo.urineoutput) AS urineoutput
    FROM stay_window AS sw
    INNER JOIN mimiciv_derived.urine_output AS uo
        ON sw.stay_id = uo.stay_id AND uo.charttime > sw.starttime AND uo.charttime <= sw.endtime
    GROUP BY sw.stay_id
),
comorbidities AS (
    SELECT
        hadm_id,
        MAX(CASE
            WHEN icd_version = 9 AND SUBSTR(icd_code, 1, 3) BETWEEN '042' AND '044' THEN 1
            WHEN icd_version = 10 AND SUBSTR(icd_code, 1, 3) BETWEEN 'B20' AND 'B22' THEN 1
            WHEN icd_version = 10 AND SUBSTR(icd_code, 1, 3) = 'B24' THEN 1
            ELSE 0
        END) AS aids,
        MAX(CASE
            WHEN
                icd_version = 9
                AND (
                    SUBSTR(icd_code, 1, 5) BETWEEN '20000' AND '20238'
                    OR SUBSTR(icd_code, 1, 5) BETWEEN '20240' AND '20248'
                    OR SUBSTR(icd_code, 1, 5) BETWEEN '20250' AND '20302'
                    OR SUBSTR(icd_code, 1, 5) BETWEEN '20310' AND '20312'
                    OR SUBSTR(icd_code, 1, 5) BETWEEN '20302' AND '20382'
                    OR SUBSTR(icd_code, 1, 5) BETWEEN '20400' AND '20522'
                    OR SUBSTR(icd_code, 1, 5) BETWEEN '20580' AND '20702'
                    OR SUBSTR(icd_code, 1, 5) BETWEEN '20720' AND '20892'
                    OR SUBSTR(icd_code, 1, 4) IN ('2386', '2733')
                )
                THEN 1
            WHEN icd_version = 10 AND SUBSTR(icd_code, 1, 3) BETWEEN 'C81' AND 'C96' THEN 1
            ELSE 0
        END) AS hem,
        MAX(CASE
            WHEN
                icd_version = 9
                AND (
                    SUBSTR(icd_code, 1, 4) BETWEEN '1960' AND '1991'
                    OR SUBSTR(icd_code, 1, 5) BETWEEN '20970' AND '20975'
                    OR SUBSTR(icd_code, 1, 5) IN ('20979', '78951')
                )
                THEN 1
            WHEN
                icd_version = 10
                AND (SUBSTR(icd_code, 1, 3) BETWEEN 'C77' AND 'C79' OR SUBSTR(icd_code, 1, 4) = 'C800')
                THEN 1
            ELSE 0
        END) AS mets
    FROM mimiciv_hosp.diagnoses_icd
    GROUP BY hadm_id
),
first_service AS (
    SELECT
        hadm_id,
        curr_service,
        ROW_NUMBER() OVER (
            PARTITION BY hadm_id ORDER BY transfertime NULLS FIRST, curr_service NULLS FIRST
        ) AS service_rank
    FROM mimiciv_hosp.services
),
admission_kind AS (
    SELECT
        ie.stay_id,
        CASE
            WHEN adm.admission_type = 'ELECTIVE' AND COALESCE(LOWER(fs.curr_service) LIKE '%surg%', FALSE)
                THEN 'ScheduledSurgical'
            WHEN adm.admission_type <> 'ELECTIVE' AND COALESCE(LOWER(fs.curr_service) LIKE '%surg%', FALSE)
                THEN 'UnscheduledSurgical'
            ELSE 'Medical'
        END AS admissiontype
    FROM mimiciv_icu.icustays AS ie
    INNER JOIN mimiciv_hosp.admissions AS adm ON ie.hadm_id = adm.hadm_id
    LEFT JOIN first_service AS fs ON ie.hadm_id = fs.hadm_id AND fs.service_rank = 1
),
inputs AS (
    SELECT
        sw.subject_id,
        sw.hadm_id,
        sw.stay_id,
        sw.starttime,
        sw.endtime,
        ag.age,
        vi.heartrate_min,
        vi.heartrate_max,
        vi.sysbp_min,
        vi.sysbp_max,
        vi.tempc_max,
        pf.pao2fio2_vent_min,
        ur.urineoutput,
        lb.bun_max,
        ct.wbc_min,
        ct.wbc_max,
        lb.potassium_min,
        lb.potassium_max,
        lb.sodium_min,
        lb.sodium_max,
        lb.bicarbonate_min,
        lv.bilirubin_max,
        ne.mingcs,
        cm.aids,
        cm.hem,
        cm.mets,
        ak.admissiontype
    FROM stay_window AS sw
    INNER JOIN admission_kind AS ak ON sw.stay_id = ak.stay_id
    LEFT JOIN mimiciv_derived.age AS ag ON sw.hadm_id = ag.hadm_id
    LEFT JOIN vitals AS vi ON sw.stay_id = vi.stay_id
    LEFT JOIN pafi AS pf ON sw.stay_id = pf.stay_id
    LEFT JOIN urine AS ur ON sw.stay_id = ur.stay_id
    LEFT JOIN labs AS lb ON sw.stay_id = lb.stay_id
    LEFT JOIN counts AS ct ON sw.stay_id = ct.stay_id
    LEFT JOIN liver AS lv ON sw.stay_id = lv.stay_id
    LEFT JOIN neuro AS ne ON sw.stay_id = ne.stay_id
    LEFT JOIN comorbidities AS cm ON sw.hadm_id = cm.hadm_id
),
scored AS (
    SELECT
        subject_id,
        hadm_id,
        stay_id,
        starttime,
        endtime,
        CASE
            WHEN age < 40 THEN 0
            WHEN age < 60 THEN 7
            WHEN age < 70 THEN 12
            WHEN age < 75 THEN 15
            WHEN age < 80 THEN 16
            WHEN age >= 80 THEN 18
        END AS age_score,
        CASE
            WHEN heartrate_min < 40 THEN 11
            WHEN heartrate_max >= 160 THEN 7
            WHEN heartrate_max >= 120 THEN 4
            WHEN heartrate_min < 70 THEN 2
            WHEN heartrate_max >= 70 AND heartrate_max < 120 AND heartrate_min >= 70 AND heartrate_min < 120
                THEN 0
        END AS hr_score,
        CASE
            WHEN sysbp_min < 70 THEN 13
            WHEN sysbp_min < 100 THEN 5
            WHEN sysbp_max >= 200 THEN 2
            WHEN sysbp_max >= 100 AND sysbp_max < 200 AND sysbp_min >= 100 AND sysbp_min < 200 THEN 0
        END AS sysbp_score,
        CASE WHEN tempc_max >= 39.0 THEN 3 WHEN tempc_max < 39.0 THEN 0 END AS temp_score,
        CASE
            WHEN pao2fio2_vent_min < 100 THEN 11
            WHEN pao2fio2_vent_min < 200 THEN 9
            WHEN pao2fio2_vent_min >= 200 THEN 6
        END AS pao2fio2_score,
        CASE
            WHEN urineoutput < 500.0 THEN 11
            WHEN urineoutput < 1000.0 THEN 4
            WHEN urineoutput >= 1000.0 THEN 0
        END AS uo_score,
        CASE WHEN bun_max < 28.0 THEN 0 WHEN bun_max < 84.0 THEN 6 WHEN bun_max >= 84.0 THEN 10 END AS bun_score,
        CASE
            WHEN wbc_min < 1.0 THEN 12
            WHEN wbc_max >= 20.0 THEN 3
            WHEN wbc_max >= 1.0 AND wbc_max < 20.0 AND wbc_min >= 1.0 AND wbc_min < 20.0 THEN 0
        END AS wbc_score,
        CASE
            WHEN potassium_min < 3.0 THEN 3
            WHEN potassium_max >= 5.0 THEN 3
            WHEN potassium_max >= 3.0 AND potassium_max < 5.0 AND potassium_min >= 3.0 AND potassium_min < 5.0
                THEN 0
        END AS potassium_score,
        CASE
            WHEN sodium_min < 125 THEN 5
            WHEN sodium_max >= 145 THEN 1
            WHEN sodium_max >= 125 AND sodium_max < 145 AND sodium_min >= 125 AND sodium_min < 145 THEN 0
        END AS sodium_score,
        CASE
            WHEN bicarbonate_min < 15.0 THEN 6
            WHEN bicarbonate_min < 20.0 THEN 3
            WHEN bicarbonate_min >= 20.0 THEN 0
        END AS bicarbonate_score,
        CASE
            WHEN bilirubin_max < 4.0 THEN 0
            WHEN bilirubin_max < 6.0 THEN 4
            WHEN bilirubin_max >= 6.0 THEN 9
        END AS bilirubin_score,
        CASE
            WHEN mingcs < 3 THEN NULL
            WHEN mingcs < 6 THEN 26
            WHEN mingcs < 9 THEN 13
            WHEN mingcs < 11 THEN 7
            WHEN mingcs < 14 THEN 5
            WHEN mingcs >= 14 AND mingcs <= 15 THEN 0
        END AS gcs_score,
        CASE WHEN aids = 1 THEN 17 WHEN hem = 1 THEN 10 WHEN mets = 1 THEN 9 ELSE 0 END AS comorbidity_score,
        CASE
            WHEN admissiontype = 'ScheduledSurgical' THEN 0
            WHEN admissiontype = 'Medical' THEN 6
            WHEN admissiontype = 'UnscheduledSurgical' THEN 8
        END AS admissiontype_score
    FROM inputs
),
totals AS (
    SELECT
        *,
        COALESCE(age_score, 0)
        + COALESCE(hr_score, 0)
        + COALESCE(sysbp_score, 0)
        + COALESCE(temp_score, 0)
        + COALESCE(pao2fio2_score, 0)
        + COALESCE(uo_score, 0)
        + COALESCE(bun_score, 0)
        + COALESCE(wbc_score, 0)
        + COALESCE(potassium_score, 0)
        + COALESCE(sodium_score, 0)
        + COALESCE(bicarbonate_score, 0)
        + COALESCE(bilirubin_score, 0)
        + COALESCE(gcs_score, 0)
        + COALESCE(comorbidity_score, 0)
        + COALESCE(admissiontype_score, 0) AS sapsii
    FROM scored
)
SELECT
    subject_id,
    hadm_id,
    stay_id,
    starttime,
    endtime,
    sapsii,
    1 / (1 + EXP(-(-7.7631 + 0.0737 * sapsii + 0.9971 * LN(sapsii + 1)))) AS sapsii_prob,
    age_score,
    hr_score,
    sysbp_score,
    temp_score,
    pao2fio2_score,
    uo_score,
    bun_score,
    wbc_score,
    potassium_score,
    sodium_score,
    bicarbonate_score,
    bilirubin_score,
    gcs_score,
    comorbidity_score,
    admissiontype_score
FROM totals
