-- KNOWN WRONG (mutant eicu-age-text-unparsed of reference-eicu.sql): the age text '> 89' is not parsed, so the oldest patients have no age.
-- OASIS (Oxford Acute Severity of Illness Score) over the first unit day (eICU-CRD).
-- Reads: eicu_crd.patient, apacheapsvar, apachepredvar, nursecharting, physicalexam,
-- intakeoutput, respiratorycare. Grain: one row per patient unit stay.
-- Every charted input lies at offsets 0 < offset <= 1440 minutes from unit admission. Charted
-- text is parsed as a number with 3 decimals. APACHE tables mark a missing number as -1:
-- APACHE urine counts only when above 0; the intubation flags and elective surgery compare
-- against 1 and 0 exactly. Pre-ICU length of stay = -hospitaladmitoffset (minutes); age
-- '> 89' counts as 91. GCS = the lowest charted total (3-15) at any offset, else the lowest
-- physical-exam GCS value. Vitals: heart rate 25-225, respiratory rate 0-60 (minimum above 0),
-- temperature (°C label only) 25-46, invasive then non-invasive mean pressure 1-250. Urine =
-- the sum of urine output rows (exact labels, Foley rows outside PACU/OR/IR, catheter
-- patterns), else APACHE urine. Ventilated = APACHE intubated, APACHE out-of-bed intubation
-- on day 1, or respiratory care with airway documentation. A component with no data scores 0.
WITH stays AS (
    SELECT
        patientunitstayid,
        uniquepid,
        patienthealthsystemstayid,
        hospitaladmitoffset,
        unitadmitsource,
        TRY_CAST(age AS INTEGER) AS age
    FROM eicu_crd.patient
),
charted AS (
    SELECT
        patientunitstayid,
        nursingchartoffset AS chartoffset,
        nursingchartcelltypecat AS category,
        nursingchartcelltypevallabel AS label,
        nursingchartcelltypevalname AS name,
        TRY_CAST(nursingchartvalue AS NUMERIC) AS value
    FROM eicu_crd.nursecharting
    WHERE nursingchartoffset > 0
        AND nursingchartoffset <= 1440
        AND nursingchartcelltypecat IN ('Vital Signs', 'Scores', 'Other Vital Signs and Infusions')
),
-- Each vital value tagged with its variable, already checked against its valid range.
vital_values AS (
    SELECT
        patientunitstayid,
        CASE
            WHEN label = 'Heart Rate' AND name = 'Heart Rate' AND value BETWEEN 25 AND 225
                THEN 'hr'
            WHEN label = 'Respiratory Rate' AND name = 'Respiratory Rate'
                AND value BETWEEN 0 AND 60
                THEN 'rr'
            WHEN label = 'Temperature' AND name = 'Temperature (C)' AND value BETWEEN 25 AND 46
                THEN 'temp'
            WHEN ((label = 'Invasive BP' AND name = 'Invasive BP Mean')
                    OR (label IN ('MAP (mmHg)', 'Arterial Line MAP (mmHg)') AND name = 'Value'))
                AND value BETWEEN 1 AND 250
                THEN 'ibp'
            WHEN label = 'Non-Invasive BP' AND name = 'Non-Invasive BP Mean'
                AND value BETWEEN 1 AND 250
                THEN 'nibp'
        END AS variable,
        value
    FROM charted
),
vitals AS (
    SELECT
        patientunitstayid,
        MIN(CASE WHEN variable = 'hr' THEN value END) AS hr_min,
        MAX(CASE WHEN variable = 'hr' THEN value END) AS hr_max,
        MIN(CASE WHEN variable = 'rr' AND value > 0 THEN value END) AS rr_min,
        MAX(CASE WHEN variable = 'rr' THEN value END) AS rr_max,
        MIN(CASE WHEN variable = 'temp' THEN value END) AS temp_min,
        MAX(CASE WHEN variable = 'temp' THEN value END) AS temp_max,
        MIN(CASE WHEN variable = 'ibp' THEN value END) AS ibp_min,
        MAX(CASE WHEN variable = 'ibp' THEN value END) AS ibp_max,
        MIN(CASE WHEN variable = 'nibp' THEN value END) AS nibp_min,
        MAX(CASE WHEN variable = 'nibp' THEN value END) AS nibp_max
    FROM vital_values
    WHERE variable IS NOT NULL
    GROUP BY patientunitstayid
),
gcs_by_offset AS (
    SELECT patientunitstayid, chartoffset, MIN(value) AS total
    FROM charted
    WHERE category IN ('Scores', 'Other Vital Signs and Infusions')
        AND ((label = 'Glasgow coma score' AND name = 'GCS Total')
            OR (label = 'Score (Glasgow Coma Scale)' AND name = 'Value'))
    GROUP BY patientunitstayid, chartoffset
),
gcs_charted AS (
    SELECT patientunitstayid, MIN(CASE WHEN total > 2 AND total < 16 THEN total END) AS gcs
    FROM gcs_by_offset
    GROUP BY patientunitstayid
),
gcs_exam AS (
    SELECT patientunitstayid, MIN(TRY_CAST(physicalexamvalue AS NUMERIC)) AS gcs
    FROM eicu_crd.physicalexam
    WHERE (
            physicalexampath
                LIKE 'notes/Progress Notes/Physical Exam/Physical Exam/Neurologic/GCS/_'
            OR physicalexampath
                LIKE 'notes/Progress Notes/Physical Exam/Physical Exam/Neurologic/GCS/__'
        )
        AND physicalexamoffset > 0
        AND physicalexamoffset <= 1440
        AND physicalexamvalue IS NOT NULL
    GROUP BY patientunitstayid
),
urine_rows AS (
    SELECT
        patientunitstayid,
        cellvaluenumeric,
        SUBSTRING(cellpath, LENGTH('flowsheet|Flowsheet Cell Labels|I&O|Output (ml)|') + 1) AS tail,
        LOWER(cellpath) AS lower_path
    FROM eicu_crd.intakeoutput
    WHERE STARTS_WITH(cellpath, 'flowsheet|Flowsheet Cell Labels|I&O|Output (ml)|')
        AND cellvaluenumeric IS NOT NULL
        AND intakeoutputoffset > 0
        AND intakeoutputoffset <= 1440
),
urine_charted AS (
    SELECT patientunitstayid, SUM(cellvaluenumeric) AS uo
    FROM urine_rows
    WHERE tail IN (
            'Urine', '3 way foley', '3 Way Foley', 'Actual Urine',
            'Adjusted total UO NOC end shift', 'BRP (urine)', 'BRP (Urine)',
            'condome cath urine', 'diaper urine', 'inc of urine', 'incontient urine',
            'Incontient urine', 'Incontient Urine', 'incontinence of urine',
            'Incontinence-urine', 'incontinence/ voids urine', 'incontinent of urine',
            'INCONTINENT OF URINE', 'Incontinent UOP', 'incontinent urine',
            'Incontinent (urine)', 'Incontinent Urine', 'incontinent urine counts',
            'incont of urine', 'incont. of urine', 'incont. of urine count', 'incont urine',
            'incont. urine', 'Incont. urine', 'Incont. Urine', 'inc urine', 'inc. urine',
            'Inc. urine', 'Inc Urine', 'indwelling foley', 'Indwelling Foley',
            'Straight Catheter-Foley', 'Straight Catheterization Urine', 'Straight Cath UOP',
            'straight cath urine', 'Straight Cath Urine', 'strait cath Urine',
            'Suprapubic Urine Output', 'true urine', 'True Urine', 'True Urine out',
            'unmeasured urine', 'Unmeasured Urine', 'unmeasured urine output',
            'Urethal Catheter', 'Urethral Catheter', 'urinary output 7AM - 7 PM',
            'urinary output 7AM-7PM', 'urine', 'URINE', 'URINE CATHETER',
            'Intermittent/Straight Cath (mL)', 'straightcath', 'straight cath', 'Straight cath',
            'Straight  cath', 'Straight Cath', 'Straight  Cath', 'Straight Cath''d',
            'straight cath daily', 'straight cathed', 'Straight Cathed',
            'Straight catheterization', 'Straight Catheter Output',
            'Straight Catheter-Straight Catheter', 'straight cath ml''s', 'Straight cath ml''s',
            'Straight Cath Q6hrs', 'Straight caths', 'Urine Output-straight cath',
            'Urine-straight cath', 'Urine Straight Cath', 'Condom Catheter', 'condom catheter',
            'condom cath', 'Condom Cath', 'CONDOM CATHETER OUTPUT', 'Urine via condom catheter',
            'Urine-foley', 'Urine- foley', 'Urine- Foley', 'Urine foley catheter',
            'Urine, L neph:', 'Urine (measured)', 'urine output',
            'Urine Output-external catheter', 'Urine Output-foley', 'Urine Output-Foley',
            'Urine Output-FOLEY', 'Urine Output-Foley cath', 'Urine Output-FOLEY CATH',
            'Urine Output-foley catheter', 'Urine Output-Foley Catheter',
            'Urine Output-FOLEY CATHETER', 'Urine Output-Foley Output', 'Urine Output-Fpley',
            'Urine Output-Ileoconduit', 'Urine Output-left nephrostomy',
            'Urine Output-Left Nephrostomy', 'Urine Output-Left Nephrostomy Tube',
            'Urine Output-LEFT PCN TUBE', 'Urine Output-L Nephrostomy',
            'Urine Output-L Nephrostomy Tube', 'Urine Output-Nephrostomy',
            'Urine Output-right nephrostomy',
            'Urine Output-RIGHT Nephrouretero Stent Urine Output', 'Urine Output-R nephrostomy',
            'Urine Output-R Nephrostomy', 'Urine Output-R. Nephrostomy',
            'Urine Output-R Nephrostomy Tube', 'Urine Output-Rt Nephrectomy',
            'Urine Output-stent', 'Urine Output-suprapubic', 'Urine Output-Texas Cath',
            'Urine Output-Urine', 'Urine Output-Urine Output', 'Urine, R neph:', 'urine (void)',
            'Urine- void', 'Urine, void:'
        )
        OR (
            STARTS_WITH(lower_path, 'flowsheet|flowsheet cell labels|i&o|output (ml)|foley')
            AND lower_path NOT LIKE '%pacu%'
            AND lower_path NOT LIKE '%or%'
            AND lower_path NOT LIKE '%ir%'
        )
        OR tail LIKE 'Output%Urinary Catheter%'
        OR tail LIKE 'Output%Urethral Catheter%'
        OR tail LIKE 'Urine Output (mL)%'
        OR tail LIKE 'Output%External Urethral%'
        OR tail LIKE 'Urinary Catheter Output%'
    GROUP BY patientunitstayid
),
airway AS (
    SELECT patientunitstayid, 1 AS documented
    FROM eicu_crd.respiratorycare
    WHERE respcarestatusoffset > 0
        AND respcarestatusoffset <= 1440
        AND (airwaytype IS NOT NULL OR airwaysize IS NOT NULL OR airwayposition IS NOT NULL
            OR cuffpressure IS NOT NULL OR setapneatv IS NOT NULL)
    GROUP BY patientunitstayid
),
inputs AS (
    SELECT
        s.patientunitstayid,
        s.uniquepid,
        s.patienthealthsystemstayid,
        s.hospitaladmitoffset,
        s.age,
        s.unitadmitsource,
        COALESCE(gc.gcs, ge.gcs) AS gcs,
        v.hr_min,
        v.hr_max,
        v.rr_min,
        v.rr_max,
        v.temp_min,
        v.temp_max,
        v.ibp_min,
        v.ibp_max,
        v.nibp_min,
        v.nibp_max,
        COALESCE(uc.uo, CASE WHEN aps.urine > 0 THEN aps.urine END) AS uo,
        CASE
            WHEN aps.intubated = 1 OR pred.oobintubday1 = 1 OR airway.documented = 1 THEN 1
            ELSE 0
        END AS mechvent,
        pred.electivesurgery
    FROM stays AS s
    LEFT JOIN vitals AS v ON v.patientunitstayid = s.patientunitstayid
    LEFT JOIN gcs_charted AS gc ON gc.patientunitstayid = s.patientunitstayid
    LEFT JOIN gcs_exam AS ge ON ge.patientunitstayid = s.patientunitstayid
    LEFT JOIN urine_charted AS uc ON uc.patientunitstayid = s.patientunitstayid
    LEFT JOIN eicu_crd.apacheapsvar AS aps ON aps.patientunitstayid = s.patientunitstayid
    LEFT JOIN eicu_crd.apachepredvar AS pred ON pred.patientunitstayid = s.patientunitstayid
    LEFT JOIN airway ON airway.patientunitstayid = s.patientunitstayid
),
scored AS (
    SELECT
        patientunitstayid,
        uniquepid,
        patienthealthsystemstayid,
        CASE
            WHEN hospitaladmitoffset > -10.2 THEN 5
            WHEN hospitaladmitoffset >= -296.4 AND hospitaladmitoffset <= -10.2 THEN 3
            WHEN hospitaladmitoffset >= -1440 AND hospitaladmitoffset <= -296.4 THEN 0
            WHEN hospitaladmitoffset >= -18708 AND hospitaladmitoffset <= -1440 THEN 2
            WHEN hospitaladmitoffset < -18708 THEN 1
        END AS preiculos_score,
        CASE
            WHEN age < 24 THEN 0
            WHEN age >= 24 AND age <= 53 THEN 3
            WHEN age >= 54 AND age <= 77 THEN 6
            WHEN age >= 78 AND age <= 89 THEN 9
            WHEN age > 89 THEN 7
        END AS age_score,
        CASE
            WHEN gcs < 8 THEN 10
            WHEN gcs >= 8 AND gcs <= 13 THEN 4
            WHEN gcs = 14 THEN 3
            WHEN gcs = 15 THEN 0
        END AS gcs_score,
        CASE
            WHEN hr_min < 33 THEN 4
            WHEN hr_max >= 33 AND hr_max <= 88 THEN 0
            WHEN hr_max >= 89 AND hr_max <= 106 THEN 1
            WHEN hr_max >= 107 AND hr_max <= 125 THEN 3
            WHEN hr_max > 125 THEN 6
        END AS heart_rate_score,
        CASE
            WHEN ibp_min < 20.65 THEN 4
            WHEN ibp_min >= 20.65 AND ibp_min <= 50.99 THEN 3
            WHEN ibp_min >= 51 AND ibp_min <= 61.32 THEN 2
            WHEN ibp_min >= 61.33 AND ibp_min <= 143.44 THEN 0
            WHEN ibp_max > 143.44 THEN 3
            WHEN nibp_min < 20.65 THEN 4
            WHEN nibp_min >= 20.65 AND nibp_min <= 50.99 THEN 3
            WHEN nibp_min >= 51 AND nibp_min <= 61.32 THEN 2
            WHEN nibp_min >= 61.33 AND nibp_min <= 143.44 THEN 0
            WHEN nibp_max > 143.44 THEN 3
        END AS mbp_score,
        CASE
            WHEN rr_min < 6 THEN 10
            WHEN rr_min >= 6 AND rr_min <= 12 THEN 1
            WHEN rr_min >= 13 AND rr_min <= 22 THEN 0
            WHEN rr_max >= 23 AND rr_max <= 30 THEN 1
            WHEN rr_max >= 31 AND rr_max <= 44 THEN 6
            WHEN rr_max > 44 THEN 9
        END AS resp_rate_score,
        CASE
            WHEN temp_min < 33.22 THEN 3
            WHEN temp_min >= 33.22 AND temp_min <= 35.93 THEN 4
            WHEN temp_max >= 33.22 AND temp_max <= 35.93 THEN 4
            WHEN temp_min >= 35.94 AND temp_min <= 36.39 THEN 2
            WHEN temp_max >= 36.40 AND temp_max <= 36.88 THEN 0
            WHEN temp_max >= 36.89 AND temp_max <= 39.88 THEN 2
            WHEN temp_max > 39.88 THEN 6
        END AS temp_score,
        CASE
            WHEN uo < 671 THEN 10
            WHEN uo >= 671 AND uo <= 1426.99 THEN 5
            WHEN uo >= 1427 AND uo <= 2543.99 THEN 1
            WHEN uo >= 2544 AND uo <= 6896 THEN 0
            WHEN uo > 6896 THEN 8
        END AS urineoutput_score,
        CASE WHEN mechvent = 1 THEN 9 ELSE 0 END AS mechvent_score,
        CASE
            WHEN electivesurgery = 0 THEN 6
            WHEN electivesurgery IS NULL THEN 6
            WHEN unitadmitsource = 'Emergency Department' THEN 6
            ELSE 0
        END AS electivesurgery_score
    FROM inputs
)
SELECT
    patientunitstayid,
    uniquepid,
    patienthealthsystemstayid,
    CAST(
        COALESCE(preiculos_score, 0) + COALESCE(age_score, 0) + COALESCE(gcs_score, 0)
        + COALESCE(heart_rate_score, 0) + COALESCE(mbp_score, 0) + COALESCE(resp_rate_score, 0)
        + COALESCE(temp_score, 0) + COALESCE(urineoutput_score, 0) + COALESCE(mechvent_score, 0)
        + COALESCE(electivesurgery_score, 0)
        AS INTEGER
    ) AS oasis,
    CAST(COALESCE(preiculos_score, 0) AS INTEGER) AS preiculos_score,
    CAST(COALESCE(age_score, 0) AS INTEGER) AS age_score,
    CAST(COALESCE(gcs_score, 0) AS INTEGER) AS gcs_score,
    CAST(COALESCE(heart_rate_score, 0) AS INTEGER) AS heart_rate_score,
    CAST(COALESCE(mbp_score, 0) AS INTEGER) AS mbp_score,
    CAST(COALESCE(resp_rate_score, 0) AS INTEGER) AS resp_rate_score,
    CAST(COALESCE(temp_score, 0) AS INTEGER) AS temp_score,
    CAST(COALESCE(urineoutput_score, 0) AS INTEGER) AS urineoutput_score,
    CAST(COALESCE(mechvent_score, 0) AS INTEGER) AS mechvent_score,
    CAST(COALESCE(electivesurgery_score, 0) AS INTEGER) AS electivesurgery_score
FROM scored
