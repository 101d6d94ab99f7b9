-- KNOWN WRONG (mutant icd10-ignored of reference.sql): ICD-10 codes are ignored: only the ICD-9 groups are tested.
-- Charlson Comorbidity Index per hospital admission (MIMIC-IV).
-- Reads: mimiciv_hosp.admissions (cohort), mimiciv_derived.age (fractional age at
-- admission), mimiciv_hosp.diagnoses_icd (billed ICD-9 and ICD-10 codes, no dots).
-- Grain: one row per admission, including admissions without any diagnosis.
-- A flag is 1 when any code of the admission falls in its group (ICD-9 groups test only
-- version-9 codes, ICD-10 groups only version-10 codes); ranges compare code prefixes as text.
-- The index weights follow Quan's ICD adaptation; within the liver, diabetes and cancer
-- pairs only the heavier condition counts toward the index, while both flags are reported.
WITH dx AS (
    SELECT
        hadm_id,
        CASE WHEN icd_version = 9 THEN SUBSTR(icd_code, 1, 3) END AS c9_3,
        CASE WHEN icd_version = 9 THEN SUBSTR(icd_code, 1, 4) END AS c9_4,
        CASE WHEN icd_version = 9 THEN SUBSTR(icd_code, 1, 5) END AS c9_5,
        CAST(NULL AS VARCHAR) AS c10_3,
        CAST(NULL AS VARCHAR) AS c10_4
    FROM mimiciv_hosp.diagnoses_icd
),
flags AS (
    SELECT
        hadm_id,
        MAX(CASE
            WHEN c9_3 IN ('410', '412') THEN 1
            WHEN c10_3 IN ('I21', 'I22') OR c10_4 = 'I252' THEN 1
            ELSE 0 END) AS myocardial_infarct,
        MAX(CASE
            WHEN c9_3 = '428' THEN 1
            WHEN c9_5 IN ('39891', '40201', '40211', '40291', '40401', '40403', '40411',
                          '40413', '40491', '40493') THEN 1
            WHEN c9_4 BETWEEN '4254' AND '4259' THEN 1
            WHEN c10_3 IN ('I43', 'I50') THEN 1
            WHEN c10_4 IN ('I099', 'I110', 'I130', 'I132', 'I255', 'I420', 'I425', 'I426',
                           'I427', 'I428', 'I429', 'P290') THEN 1
            ELSE 0 END) AS congestive_heart_failure,
        MAX(CASE
            WHEN c9_3 IN ('440', '441') THEN 1
            WHEN c9_4 IN ('0930', '4373', '4471', '5571', '5579', 'V434') THEN 1
            WHEN c9_4 BETWEEN '4431' AND '4439' THEN 1
            WHEN c10_3 IN ('I70', 'I71') THEN 1
            WHEN c10_4 IN ('I731', 'I738', 'I739', 'I771', 'I790', 'I792', 'K551', 'K558',
                           'K559', 'Z958', 'Z959') THEN 1
            ELSE 0 END) AS peripheral_vascular_disease,
        MAX(CASE
            WHEN c9_3 BETWEEN '430' AND '438' THEN 1
            WHEN c9_5 = '36234' THEN 1
            WHEN c10_3 IN ('G45', 'G46') THEN 1
            WHEN c10_3 BETWEEN 'I60' AND 'I69' THEN 1
            WHEN c10_4 = 'H340' THEN 1
            ELSE 0 END) AS cerebrovascular_disease,
        MAX(CASE
            WHEN c9_3 = '290' THEN 1
            WHEN c9_4 IN ('2941', '3312') THEN 1
            WHEN c10_3 IN ('F00', 'F01', 'F02', 'F03', 'G30') THEN 1
            WHEN c10_4 IN ('F051', 'G311') THEN 1
            ELSE 0 END) AS dementia,
        MAX(CASE
            WHEN c9_3 BETWEEN '490' AND '505' THEN 1
            WHEN c9_4 IN ('4168', '4169', '5064', '5081', '5088') THEN 1
            WHEN c10_3 BETWEEN 'J40' AND 'J47' THEN 1
            WHEN c10_3 BETWEEN 'J60' AND 'J67' THEN 1
            WHEN c10_4 IN ('I278', 'I279', 'J684', 'J701', 'J703') THEN 1
            ELSE 0 END) AS chronic_pulmonary_disease,
        MAX(CASE
            WHEN c9_3 = '725' THEN 1
            WHEN c9_4 IN ('4465', '7100', '7101', '7102', '7103', '7104', '7140', '7141',
                          '7142', '7148') THEN 1
            WHEN c10_3 IN ('M05', 'M06', 'M32', 'M33', 'M34') THEN 1
            WHEN c10_4 IN ('M315', 'M351', 'M353', 'M360') THEN 1
            ELSE 0 END) AS rheumatic_disease,
        MAX(CASE
            WHEN c9_3 IN ('531', '532', '533', '534') THEN 1
            WHEN c10_3 IN ('K25', 'K26', 'K27', 'K28') THEN 1
            ELSE 0 END) AS peptic_ulcer_disease,
        MAX(CASE
            WHEN c9_3 IN ('570', '571') THEN 1
            WHEN c9_4 IN ('0706', '0709', '5733', '5734', '5738', '5739', 'V427') THEN 1
            WHEN c9_5 IN ('07022', '07023', '07032', '07033', '07044', '07054') THEN 1
            WHEN c10_3 IN ('B18', 'K73', 'K74') THEN 1
            WHEN c10_4 IN ('K700', 'K701', 'K702', 'K703', 'K709', 'K713', 'K714', 'K715',
                           'K717', 'K760', 'K762', 'K763', 'K764', 'K768', 'K769', 'Z944') THEN 1
            ELSE 0 END) AS mild_liver_disease,
        MAX(CASE
            WHEN c9_4 IN ('2500', '2501', '2502', '2503', '2508', '2509') THEN 1
            WHEN REGEXP_FULL_MATCH(c10_4, 'E1[0-4][01689]') THEN 1
            ELSE 0 END) AS diabetes_without_cc,
        MAX(CASE
            WHEN c9_4 IN ('2504', '2505', '2506', '2507') THEN 1
            WHEN REGEXP_FULL_MATCH(c10_4, 'E1[0-4][23457]') THEN 1
            ELSE 0 END) AS diabetes_with_cc,
        MAX(CASE
            WHEN c9_3 IN ('342', '343') THEN 1
            WHEN c9_4 IN ('3341', '3440', '3441', '3442', '3443', '3444', '3445', '3446',
                          '3449') THEN 1
            WHEN c10_3 IN ('G81', 'G82') THEN 1
            WHEN c10_4 IN ('G041', 'G114', 'G801', 'G802', 'G830', 'G831', 'G832', 'G833',
                           'G834', 'G839') THEN 1
            ELSE 0 END) AS paraplegia,
        MAX(CASE
            WHEN c9_3 IN ('582', '585', '586', 'V56') THEN 1
            WHEN c9_4 IN ('5880', 'V420', 'V451') THEN 1
            WHEN c9_4 BETWEEN '5830' AND '5837' THEN 1
            WHEN c9_5 IN ('40301', '40311', '40391', '40402', '40403', '40412', '40413',
                          '40492', '40493') THEN 1
            WHEN c10_3 IN ('N18', 'N19') THEN 1
            WHEN c10_4 IN ('I120', 'I131', 'N032', 'N033', 'N034', 'N035', 'N036', 'N037',
                           'N052', 'N053', 'N054', 'N055', 'N056', 'N057', 'N250', 'Z490',
                           'Z491', 'Z492', 'Z940', 'Z992') THEN 1
            ELSE 0 END) AS renal_disease,
        MAX(CASE
            WHEN c9_3 BETWEEN '140' AND '172' THEN 1
            WHEN c9_4 BETWEEN '1740' AND '1958' THEN 1
            WHEN c9_3 BETWEEN '200' AND '208' THEN 1
            WHEN c9_4 = '2386' THEN 1
            WHEN c10_3 IN ('C43', 'C88') THEN 1
            WHEN c10_3 BETWEEN 'C00' AND 'C26' THEN 1
            WHEN c10_3 BETWEEN 'C30' AND 'C34' THEN 1
            WHEN c10_3 BETWEEN 'C37' AND 'C41' THEN 1
            WHEN c10_3 BETWEEN 'C45' AND 'C58' THEN 1
            WHEN c10_3 BETWEEN 'C60' AND 'C76' THEN 1
            WHEN c10_3 BETWEEN 'C81' AND 'C85' THEN 1
            WHEN c10_3 BETWEEN 'C90' AND 'C97' THEN 1
            ELSE 0 END) AS malignant_cancer,
        MAX(CASE
            WHEN c9_4 IN ('4560', '4561', '4562') THEN 1
            WHEN c9_4 BETWEEN '5722' AND '5728' THEN 1
            WHEN c10_4 IN ('I850', 'I859', 'I864', 'I982', 'K704', 'K711', 'K721', 'K729',
                           'K765', 'K766', 'K767') THEN 1
            ELSE 0 END) AS severe_liver_disease,
        MAX(CASE
            WHEN c9_3 IN ('196', '197', '198', '199') THEN 1
            WHEN c10_3 IN ('C77', 'C78', 'C79', 'C80') THEN 1
            ELSE 0 END) AS metastatic_solid_tumor,
        MAX(CASE
            WHEN c9_3 IN ('042', '043', '044') THEN 1
            WHEN c10_3 IN ('B20', 'B21', 'B22', 'B24') THEN 1
            ELSE 0 END) AS aids
    FROM dx
    GROUP BY hadm_id
),
combined AS (
    SELECT
        adm.subject_id,
        adm.hadm_id,
        CASE
            WHEN ag.age <= 50 THEN 0
            WHEN ag.age <= 60 THEN 1
            WHEN ag.age <= 70 THEN 2
            WHEN ag.age <= 80 THEN 3
            ELSE 4
        END AS age_score,
        COALESCE(f.myocardial_infarct, 0) AS myocardial_infarct,
        COALESCE(f.congestive_heart_failure, 0) AS congestive_heart_failure,
        COALESCE(f.peripheral_vascular_disease, 0) AS peripheral_vascular_disease,
        COALESCE(f.cerebrovascular_disease, 0) AS cerebrovascular_disease,
        COALESCE(f.dementia, 0) AS dementia,
        COALESCE(f.chronic_pulmonary_disease, 0) AS chronic_pulmonary_disease,
        COALESCE(f.rheumatic_disease, 0) AS rheumatic_disease,
        COALESCE(f.peptic_ulcer_disease, 0) AS peptic_ulcer_disease,
        COALESCE(f.mild_liver_disease, 0) AS mild_liver_disease,
        COALESCE(f.diabetes_without_cc, 0) AS diabetes_without_cc,
        COALESCE(f.diabetes_with_cc, 0) AS diabetes_with_cc,
        COALESCE(f.paraplegia, 0) AS paraplegia,
        COALESCE(f.renal_disease, 0) AS renal_disease,
        COALESCE(f.malignant_cancer, 0) AS malignant_cancer,
        COALESCE(f.severe_liver_disease, 0) AS severe_liver_disease,
        COALESCE(f.metastatic_solid_tumor, 0) AS metastatic_solid_tumor,
        COALESCE(f.aids, 0) AS aids
    FROM mimiciv_hosp.admissions AS adm
    LEFT JOIN mimiciv_derived.age AS ag ON ag.hadm_id = adm.hadm_id
    LEFT JOIN flags AS f ON f.hadm_id = adm.hadm_id
)
SELECT
    subject_id,
    hadm_id,
    CAST(age_score AS INTEGER) AS age_score,
    CAST(myocardial_infarct AS INTEGER) AS myocardial_infarct,
    CAST(congestive_heart_failure AS INTEGER) AS congestive_heart_failure,
    CAST(peripheral_vascular_disease AS INTEGER) AS peripheral_vascular_disease,
    CAST(cerebrovascular_disease AS INTEGER) AS cerebrovascular_disease,
    CAST(dementia AS INTEGER) AS dementia,
    CAST(chronic_pulmonary_disease AS INTEGER) AS chronic_pulmonary_disease,
    CAST(rheumatic_disease AS INTEGER) AS rheumatic_disease,
    CAST(peptic_ulcer_disease AS INTEGER) AS peptic_ulcer_disease,
    CAST(mild_liver_disease AS INTEGER) AS mild_liver_disease,
    CAST(diabetes_without_cc AS INTEGER) AS diabetes_without_cc,
    CAST(diabetes_with_cc AS INTEGER) AS diabetes_with_cc,
    CAST(paraplegia AS INTEGER) AS paraplegia,
    CAST(renal_disease AS INTEGER) AS renal_disease,
    CAST(malignant_cancer AS INTEGER) AS malignant_cancer,
    CAST(severe_liver_disease AS INTEGER) AS severe_liver_disease,
    CAST(metastatic_solid_tumor AS INTEGER) AS metastatic_solid_tumor,
    CAST(aids AS INTEGER) AS aids,
    CAST(
        age_score + myocardial_infarct + congestive_heart_failure + peripheral_vascular_disease
        + cerebrovascular_disease + dementia + chronic_pulmonary_disease + rheumatic_disease
        + peptic_ulcer_disease
        + GREATEST(mild_liver_disease, 3 * severe_liver_disease)
        + GREATEST(2 * diabetes_with_cc, diabetes_without_cc)
        + GREATEST(2 * malignant_cancer, 6 * metastatic_solid_tumor)
        + 2 * paraplegia + 2 * renal_disease + 6 * aids
        AS INTEGER) AS charlson_comorbidity_index
FROM combined
