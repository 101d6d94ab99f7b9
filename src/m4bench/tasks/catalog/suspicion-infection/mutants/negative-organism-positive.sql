-- KNOWN WRONG (mutant negative-organism-positive of reference.sql): a culture whose only organism is the 'negative' code counts as positive.
-- Suspicion of infection (MIMIC-IV): each antibiotic prescription with the culture behind it.
-- Reads: mimiciv_derived.antibiotic, mimiciv_hosp.microbiologyevents.
-- Grain: one row per antibiotic row; key (subject_id, ab_id). ab_id numbers a subject's
-- antibiotics by starttime, stoptime, antibiotic, hadm_id, stay_id (each ascending, NULLs
-- first); rows still tied have identical output. Cultures are microbiology specimens of the
-- same subject (any specimen type), one per micro_specimen_id.
-- Culture before the antibiotic: charttime < antibiotic start <= charttime + 72 h; a date-only
-- culture when chartdate <= antibiotic date <= chartdate + 3 days. Culture after: charttime -
-- 24 h <= antibiotic start < charttime; date-only when chartdate - 1 day <= antibiotic date <=
-- chartdate. A date-only culture counts as chartdate 00:00. In each direction the first
-- culture by chartdate, charttime (date-only first), micro_specimen_id wins; the culture
-- before the antibiotic takes precedence for every output column.
WITH ab AS (
    SELECT
        subject_id,
        hadm_id,
        stay_id,
        antibiotic,
        starttime AS antibiotic_time,
        DATE_TRUNC('DAY', starttime) AS antibiotic_date,
        ROW_NUMBER() OVER (
            PARTITION BY subject_id
            ORDER BY
                starttime ASC NULLS FIRST,
                stoptime ASC NULLS FIRST,
                antibiotic ASC NULLS FIRST,
                hadm_id ASC NULLS FIRST,
                stay_id ASC NULLS FIRST
        ) AS ab_id
    FROM mimiciv_derived.antibiotic
),
cultures AS (
    SELECT
        micro_specimen_id,
        MAX(subject_id) AS subject_id,
        CAST(MAX(chartdate) AS DATE) AS chartdate,
        MAX(charttime) AS charttime,
        MAX(spec_type_desc) AS spec_type_desc,
        MAX(
            CASE
                WHEN org_name IS NOT NULL AND org_name != '' THEN 1
                ELSE 0
            END
        ) AS positiveculture
    FROM mimiciv_hosp.microbiologyevents
    GROUP BY micro_specimen_id
),
culture_before AS (
    SELECT
        ab.subject_id,
        ab.ab_id,
        COALESCE(c.charttime, CAST(c.chartdate AS TIMESTAMP)) AS culture_time,
        c.spec_type_desc AS specimen,
        c.positiveculture,
        ROW_NUMBER() OVER (
            PARTITION BY ab.subject_id, ab.ab_id
            ORDER BY c.chartdate ASC NULLS FIRST, c.charttime ASC NULLS FIRST, c.micro_specimen_id
        ) AS pick
    FROM ab
    INNER JOIN cultures AS c
        ON c.subject_id = ab.subject_id
        AND (
            (
                c.charttime IS NOT NULL
                AND ab.antibiotic_time > c.charttime
                AND ab.antibiotic_time <= c.charttime + INTERVAL 72 HOUR
            )
            OR (
                c.charttime IS NULL
                AND ab.antibiotic_date >= c.chartdate
                AND ab.antibiotic_date <= c.chartdate + INTERVAL 3 DAY
            )
        )
),
culture_after AS (
    SELECT
        ab.subject_id,
        ab.ab_id,
        COALESCE(c.charttime, CAST(c.chartdate AS TIMESTAMP)) AS culture_time,
        c.spec_type_desc AS specimen,
        c.positiveculture,
        ROW_NUMBER() OVER (
            PARTITION BY ab.subject_id, ab.ab_id
            ORDER BY c.chartdate ASC NULLS FIRST, c.charttime ASC NULLS FIRST, c.micro_specimen_id
        ) AS pick
    FROM ab
    INNER JOIN cultures AS c
        ON c.subject_id = ab.subject_id
        AND (
            (
                c.charttime IS NOT NULL
                AND ab.antibiotic_time >= c.charttime - INTERVAL 24 HOUR
                AND ab.antibiotic_time < c.charttime
            )
            OR (
                c.charttime IS NULL
                AND ab.antibiotic_date >= c.chartdate - INTERVAL 1 DAY
                AND ab.antibiotic_date <= c.chartdate
            )
        )
)
SELECT
    ab.subject_id,
    ab.stay_id,
    ab.hadm_id,
    CAST(ab.ab_id AS INTEGER) AS ab_id,
    ab.antibiotic,
    ab.antibiotic_time,
    CAST(
        CASE WHEN bef.specimen IS NULL AND aft.specimen IS NULL THEN 0 ELSE 1 END AS INTEGER
    ) AS suspected_infection,
    CASE
        WHEN bef.specimen IS NULL AND aft.specimen IS NULL THEN NULL
        ELSE COALESCE(bef.culture_time, ab.antibiotic_time)
    END AS suspected_infection_time,
    COALESCE(bef.culture_time, aft.culture_time) AS culture_time,
    COALESCE(bef.specimen, aft.specimen) AS specimen,
    CAST(COALESCE(bef.positiveculture, aft.positiveculture) AS INTEGER) AS positive_culture
FROM ab
LEFT JOIN culture_before AS bef
    ON bef.subject_id = ab.subject_id
    AND bef.ab_id = ab.ab_id
    AND bef.pick = 1
LEFT JOIN culture_after AS aft
    ON aft.subject_id = ab.subject_id
    AND aft.ab_id = ab.ab_id
    AND aft.pick = 1
