-- charlson: Charlson comorbidity index (Quan 2005 ICD-9/ICD-10 coding) with age points, per admission
-- Grain: one row per mimiciv_hosp.admissions row (admissions without diagnoses get all flags 0)
-- Inputs: mimiciv_hosp.admissions, mimiciv_hosp.diagnoses_icd, age
-- Convention: ICD-9 rules apply to icd_version 9 rows, ICD-10 rules to version 10; a code is tested on its
--   first 3, 4 or 5 characters (the whole code if shorter) and ranges compare those prefixes as text.
-- Convention: age points from the fractional age: <= 50: 0, <= 60: 1, <= 70: 2, <= 80: 3, else 4. The
--   liver, diabetes and cancer hierarchies act only on the index; both flags of a pair are output as found.
WITH codes AS (
    SELECT
        hadm_id,
        icd_version,
        SUBSTR(icd_code, 1, 3) AS p3,
        SUBSTR(icd_code, 1, 4) AS p4,
        SUBSTR(icd_code, 1, 5) AS p5
    FROM mimiciv_hosp.diagnoses_icd
),
flags AS (
    SELECT
        hadm_id,
        MAX(CASE
            WHEN icd_version = 9 AND p3 IN ('410', '412') THEN 1
            WHEN icd_version = 10 AND (p3 IN ('I21', 'I22') OR p4 = 'I252') THEN 1
            ELSE 0
        END) AS myocardial_infarct,
        MAX(CASE
            WHEN
                icd_version = 9
                AND (
                    p3 = '428'
                    OR p5 IN ('39891', '40201', '40211', '40291', '40401', '40403', '40411', '40413', '40491', '40493')
                    OR p4 BETWEEN '4254' AND '4259'
                )
                THEN 1
            WHEN
                icd_version = 10
                AND (
                    p3 IN ('I43', 'I50')
                    OR p4 IN (
                        'I099', 'I110', 'I130', 'I132', 'I255', 'I420', 'I425', 'I426', 'I427', 'I428', 'I429', 'P290'
                    )
                )
                THEN 1
            ELSE 0
        END) AS congestive_heart_failure,
        MAX(CASE
            WHEN
                icd_version = 9
                AND (
                    p3 IN ('440', '441')
                    OR p4 IN ('0930', '4373', '4471', '5571', '5579', 'V434')
                    OR p4 BETWEEN '4431' AND '4439'
                )
                THEN 1
            WHEN
                icd_version = 10
                AND (
                    p3 IN ('I70', 'I71')
                    OR p4 IN ('I731', 'I738', 'I739', 'I771', 'I790', 'I792', 'K551', 'K558', 'K559', 'Z958', 'Z959')
                )
                THEN 1
            ELSE 0
        END) AS peripheral_vascular_disease,
        MAX(CASE
            WHEN icd_version = 9 AND (p3 BETWEEN '430' AND '438' OR p5 = '36234') THEN 1
            WHEN
                icd_version = 10
                AND (p3 IN ('G45', 'G46') OR p3 BETWEEN 'I60' AND 'I69' OR p4 = 'H340')
                THEN 1
            ELSE 0
        END) AS cerebrovascular_disease,
        MAX(CASE
            WHEN icd_version = 9 AND (p3 = '290' OR p4 IN ('2941', '3312')) THEN 1
            WHEN
                icd_version = 10
                AND (p3 IN ('F00', 'F01', 'F02', 'F03', 'G30') OR p4 IN ('F051', 'G311'))
                THEN 1
            ELSE 0
        END) AS dementia,
        MAX(CASE
            WHEN
                icd_version = 9
                AND (p3 BETWEEN '490' AND '505' OR p4 IN ('4168', '4169', '5064', '5081', '5088'))
                THEN 1
            WHEN
                icd_version = 10
                AND (
                    p3 BETWEEN 'J40' AND 'J47'
                    OR p3 BETWEEN 'J60' AND 'J67'
                    OR p4 IN ('I278', 'I279', 'J684', 'J701', 'J703')
                )
                THEN 1
            ELSE 0
        END) AS chronic_pulmonary_disease,
        MAX(CASE
            WHEN
                icd_version = 9
                AND (
                    p3 = '725'
                    OR p4 IN ('4465', '7100', '7101', '7102', '7103', '7104', '7140', '7141', '7142', '7148')
                )
                THEN 1
            WHEN
                icd_version = 10
                AND (p3 IN ('M05', 'M06', 'M32', 'M33', 'M34') OR p4 IN ('M315', 'M351', 'M353', 'M360'))
                THEN 1
            ELSE 0
        END) AS rheumatic_disease,
        MAX(CASE
            WHEN icd_version = 9 AND p3 IN ('531', '532', '533', '534') THEN 1
            WHEN icd_version = 10 AND p3 IN ('K25', 'K26', 'K27', 'K28') THEN 1
            ELSE 0
        END) AS peptic_ulcer_disease,
        MAX(CASE
            WHEN
                icd_version = 9
                AND (
                    p3 IN ('570', '571')
                    OR p4 IN ('0706', '0709', '5733', '5734', '5738', '5739', 'V427')
                    OR p5 IN ('07022', '07023', '07032', '07033', '07044', '07054')
                )
                THEN 1
            WHEN
                icd_version = 10
                AND (
                    p3 IN ('B18', 'K73', 'K74')
                    OR p4 IN (
                        'K700', 'K701', 'K702', 'K703', 'K709', 'K713', 'K714', 'K715', 'K717', 'K760', 'K762',
                        'K763', 'K764', 'K768', 'K769', 'Z944'
                    )
                )
                THEN 1
            ELSE 0
        END) AS mild_liver_disease,
        MAX(CASE
            WHEN icd_version = 9 AND p4 IN ('2500', '2501', '2502', '2503', '2508', '2509') THEN 1
            WHEN
                icd_version = 10
                AND p3 IN ('E10', 'E11', 'E12', 'E13', 'E14')
                AND SUBSTR(p4, 4, 1) IN ('0', '1', '6', '8', '9')
                THEN 1
            ELSE 0
        END) AS diabetes_without_cc,
        MAX(CASE
            WHEN icd_version = 9 AND p4 IN ('2504', '2505', '2506', '2507') THEN 1
            WHEN
                icd_version = 10
                AND p3 IN ('E10', 'E11', 'E12', 'E13', 'E14')
                AND SUBSTR(p4, 4, 1) IN ('2', '3', '4', '5', '7')
                THEN 1
            ELSE 0
        END) AS diabetes_with_cc,
        MAX(CASE
            WHEN
                icd_version = 9
                AND (
                    p3 IN ('342', '343')
                    OR p4 IN ('3341', '3440', '3441', '3442', '3443', '3444', '3445', '3446', '3449')
                )
                THEN 1
            WHEN
                icd_version = 10
                AND (
                    p3 IN ('G81', 'G82')
                    OR p4 IN ('G041', 'G114', 'G801', 'G802', 'G830', 'G831', 'G832', 'G833', 'G834', 'G839')
                )
                THEN 1
            ELSE 0
        END) AS paraplegia,
        MAX(CASE
            WHEN
                icd_version = 9
                AND (
                    p3 IN ('582', '585', '586', 'V56')
                    OR p4 IN ('5880', 'V420', 'V451')
                    OR p4 BETWEEN '5830' AND '5837'
                    OR p5 IN ('40301', '40311', '40391', '40402', '40403', '40412', '40413', '40492', '40493')
                )
                THEN 1
            WHEN
                icd_version = 10
                AND (
                    p3 IN ('N18', 'N19')
                    OR p4 IN (
                        'I120', 'I131', 'N032', 'N033', 'N034', 'N035', 'N036', 'N037', 'N052', 'N053', 'N054',
                        'N055', 'N056', 'N057', 'N250', 'Z490', 'Z491', 'Z492', 'Z940', 'Z992'
                    )
                )
                THEN 1
            ELSE 0
        END) AS renal_disease,
        MAX(CASE
            WHEN
                icd_version = 9
                AND (
                    p3 BETWEEN '140' AND '172'
                    OR p4 BETWEEN '1740' AND '1958'
                    OR p3 BETWEEN '200' AND '208'
                    OR p4 = '2386'
                )
                THEN 1
            WHEN
                icd_version = 10
                AND (
                    p3 IN ('C43', 'C88')
                    OR p3 BETWEEN 'C00' AND 'C26'
                    OR p3 BETWEEN 'C30' AND 'C34'
                    OR p3 BETWEEN 'C37' AND 'C41'
                    OR p3 BETWEEN 'C45' AND 'C58'
                    OR p3 BETWEEN 'C60' AND 'C76'
                    OR p3 BETWEEN 'C81' AND 'C85'
                    OR p3 BETWEEN 'C90' AND 'C97'
                )
                THEN 1
            ELSE 0
        END) AS malignant_cancer,
        MAX(CASE
            WHEN icd_version = 9 AND (p4 IN ('4560', '4561', '4562') OR p4 BETWEEN '5722' AND '5728') THEN 1
            WHEN
                icd_version = 10
                AND p4 IN ('I850', 'I859', 'I864', 'I982', 'K704', 'K711', 'K721', 'K729', 'K765', 'K766', 'K767')
                THEN 1
            ELSE 0
        END) AS severe_liver_disease,
        MAX(CASE
            WHEN icd_version = 9 AND p3 IN ('196', '197', '198', '199') THEN 1
            WHEN icd_version = 10 AND p3 IN ('C77', 'C78', 'C79', 'C80') THEN 1
            ELSE 0
        END) AS metastatic_solid_tumor,
        MAX(CASE
            WHEN icd_version = 9 AND p3 IN ('042', '043', '044') THEN 1
            WHEN icd_version = 10 AND p3 IN ('B20', 'B21', 'B22', 'B24') THEN 1
            ELSE 0
        END) AS aids
    FROM codes
    GROUP BY hadm_id
),
scored AS (
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
        COALESCE(fl.myocardial_infarct, 0) AS myocardial_infarct,
        COALESCE(fl.congestive_heart_failure, 0) AS congestive_heart_failure,
        COALESCE(fl.peripheral_vascular_disease, 0) AS peripheral_vascular_disease,
        COALESCE(fl.cerebrovascular_disease, 0) AS cerebrovascular_disease,
        COALESCE(fl.dementia, 0) AS dementia,
        COALESCE(fl.chronic_pulmonary_disease, 0) AS chronic_pulmonary_disease,
        COALESCE(fl.rheumatic_disease, 0) AS rheumatic_disease,
        COALESCE(fl.peptic_ulcer_disease, 0) AS peptic_ulcer_disease,
        COALESCE(fl.mild_liver_disease, 0) AS mild_liver_disease,
        COALESCE(fl.diabetes_without_cc, 0) AS diabetes_without_cc,
        COALESCE(fl.diabetes_with_cc, 0) AS diabetes_with_cc,
        COALESCE(fl.paraplegia, 0) AS paraplegia,
        COALESCE(fl.renal_disease, 0) AS renal_disease,
        COALESCE(fl.malignant_cancer, 0) AS malignant_cancer,
        COALESCE(fl.severe_liver_disease, 0) AS severe_liver_disease,
        COALESCE(fl.metastatic_solid_tumor, 0) AS metastatic_solid_tumor,
        COALESCE(fl.aids, 0) AS aids
    FROM mimiciv_hosp.admissions AS adm
    LEFT JOIN flags AS fl ON adm.hadm_id = fl.hadm_id
    LEFT JOIN mimiciv_derived.age AS ag ON adm.hadm_id = ag.hadm_id
)
SELECT
    *,
    age_score
    + myocardial_infarct
    + congestive_heart_failure
    + peripheral_vascular_disease
    + cerebrovascular_disease
    + dementia
    + chronic_pulmonary_disease
    + rheumatic_disease
    + peptic_ulcer_disease
    + GREATEST(mild_liver_disease, 3 * severe_liver_disease)
    + GREATEST(2 * diabetes_with_cc, diabetes_without_cc)
    + GREATEST(2 * malignant_cancer, 6 * metastatic_solid_tumor)
    + 2 * paraplegia
    + 2 * renal_disease
    + 6 * aids AS charlson_comorbidity_index
FROM scored
