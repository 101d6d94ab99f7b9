-- icustay_detail: one ICU stay with its admission and patient facts, ages and sequence numbers
-- Grain: one row per ICU stay (stay_id)
-- Inputs: mimiciv_icu.icustays inner-joined to mimiciv_hosp.admissions (hadm_id) and
-- mimiciv_hosp.patients (subject_id).
-- los_hospital: fractional days from admittime to dischtime. admission_age: same formula as `age`.
-- hospstay_seq: dense rank of admittime within the subject (NULLS FIRST), over the joined stay rows,
-- so admissions without an ICU stay are not counted. icustay_seq: dense rank of intime within hadm_id.
-- los_icu: fractional hours / 24, cast to DECIMAL(18,3) then rounded to 2 decimals.
SELECT
    ie.subject_id,
    ie.hadm_id,
    ie.stay_id,
    pat.gender,
    pat.dod,
    adm.admittime,
    adm.dischtime,
    DATE_DIFF('microsecond', adm.admittime, adm.dischtime) / 86400000000.0 AS los_hospital,
    pat.anchor_age
        + DATE_DIFF(
            'microsecond', MAKE_TIMESTAMP(pat.anchor_year, 1, 1, 0, 0, 0), adm.admittime
        ) / 31556908800000.0 AS admission_age,
    adm.race,
    adm.hospital_expire_flag,
    DENSE_RANK() OVER (
        PARTITION BY adm.subject_id ORDER BY adm.admittime NULLS FIRST
    ) AS hospstay_seq,
    DENSE_RANK() OVER (
        PARTITION BY adm.subject_id ORDER BY adm.admittime NULLS FIRST
    ) = 1 AS first_hosp_stay,
    ie.intime AS icu_intime,
    ie.outtime AS icu_outtime,
    ROUND(
        TRY_CAST(
            DATE_DIFF('microsecond', ie.intime, ie.outtime) / 3600000000.0 / 24 AS DECIMAL(18, 3)
        ),
        2
    ) AS los_icu,
    DENSE_RANK() OVER (PARTITION BY ie.hadm_id ORDER BY ie.intime) AS icustay_seq,
    DENSE_RANK() OVER (PARTITION BY ie.hadm_id ORDER BY ie.intime) = 1 AS first_icu_stay
FROM mimiciv_icu.icustays AS ie
INNER JOIN mimiciv_hosp.admissions AS adm
    ON ie.hadm_id = adm.hadm_id
INNER JOIN mimiciv_hosp.patients AS pat
    ON ie.subject_id = pat.subject_id
