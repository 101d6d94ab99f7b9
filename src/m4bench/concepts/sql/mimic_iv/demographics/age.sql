-- age: patient age in fractional years at each hospital admission
-- Grain: one row per admission (hadm_id)
-- Inputs: mimiciv_hosp.admissions inner-joined to mimiciv_hosp.patients on subject_id.
-- age = anchor_age + (admittime - 1 January of anchor_year) in microseconds / 31,556,908,800,000
-- (a 365.242-day year). Fractional and unrounded: it can fall below anchor_age for an admission
-- before 1 January of the anchor year. Every age bin downstream compares this value.
SELECT
    adm.subject_id,
    adm.hadm_id,
    adm.admittime,
    pat.anchor_age,
    pat.anchor_year,
    pat.anchor_age
        + DATE_DIFF(
            'microsecond', MAKE_TIMESTAMP(pat.anchor_year, 1, 1, 0, 0, 0), adm.admittime
        ) / 31556908800000.0 AS age
FROM mimiciv_hosp.admissions AS adm
INNER JOIN mimiciv_hosp.patients AS pat
    ON adm.subject_id = pat.subject_id
