-- suspicion_of_infection: each antibiotic prescription with the culture that makes it a suspected infection
-- Grain: one row per antibiotic row (subject_id, ab_id)
-- Inputs: antibiotic, mimiciv_hosp.microbiologyevents
-- Convention: ab_id numbers a subject's antibiotics by starttime, stoptime, drug (NULLS FIRST). Cultures are
--   microbiology specimens (any type) of the same subject, one per micro_specimen_id; positive when any row
--   has a non-empty organism other than the NEGATIVE sentinel 90856. A culture qualifies when the antibiotic
--   starts within (charttime, charttime + 72 h] after it or [charttime - 24 h, charttime) before it; a
--   date-only culture uses calendar days ([chartdate, chartdate + 3 days] after, [chartdate - 1 day,
--   chartdate] before) and counts as chartdate 00:00. In each direction the earliest culture by chartdate then
--   charttime (timed before date-only on the same date) wins; the culture-first match takes precedence.
-- Convention: ties left open by those orderings are broken by hadm_id, stay_id (antibiotics) and
--   micro_specimen_id (cultures) so the table is deterministic.
WITH ab_tbl AS (
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
                starttime NULLS FIRST,
                stoptime NULLS FIRST,
                antibiotic NULLS FIRST,
                hadm_id NULLS FIRST,
                stay_id NULLS FIRST,
                route NULLS FIRST
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
            CASE WHEN org_name IS NOT NULL AND org_itemid <> 90856 AND org_name <> '' THEN 1 ELSE 0 END
        ) AS positiveculture
    FROM mimiciv_hosp.microbiologyevents
    GROUP BY micro_specimen_id
),
culture_then_ab AS (
    SELECT
        ab.subject_id,
        ab.ab_id,
        COALESCE(me.charttime, CAST(me.chartdate AS TIMESTAMP)) AS culture_time,
        me.spec_type_desc AS specimen,
        me.positiveculture,
        ROW_NUMBER() OVER (
            PARTITION BY ab.subject_id, ab.ab_id
            ORDER BY me.chartdate NULLS FIRST, me.charttime, me.micro_specimen_id
        ) AS culture_rank
    FROM ab_tbl AS ab
    INNER JOIN cultures AS me
        ON ab.subject_id = me.subject_id
        AND (
            (
                ab.antibiotic_time > me.charttime
                AND ab.antibiotic_time <= me.charttime + INTERVAL 72 HOUR
            )
            OR (
                me.charttime IS NULL
                AND ab.antibiotic_date >= me.chartdate
                AND ab.antibiotic_date <= me.chartdate + INTERVAL 3 DAY
            )
        )
),
ab_then_culture AS (
    SELECT
        ab.subject_id,
        ab.ab_id,
        COALESCE(me.charttime, CAST(me.chartdate AS TIMESTAMP)) AS culture_time,
        me.spec_type_desc AS specimen,
        me.positiveculture,
        ROW_NUMBER() OVER (
            PARTITION BY ab.subject_id, ab.ab_id
            ORDER BY me.chartdate NULLS FIRST, me.charttime, me.micro_specimen_id
        ) AS culture_rank
    FROM ab_tbl AS ab
    INNER JOIN cultures AS me
        ON ab.subject_id = me.subject_id
        AND (
            (
                ab.antibiotic_time >= me.charttime - INTERVAL 24 HOUR
                AND ab.antibiotic_time < me.charttime
            )
            OR (
                me.charttime IS NULL
                AND ab.antibiotic_date >= me.chartdate - INTERVAL 1 DAY
                AND ab.antibiotic_date <= me.chartdate
            )
        )
)
SELECT
    ab.subject_id,
    ab.stay_id,
    ab.hadm_id,
    ab.ab_id,
    ab.antibiotic,
    ab.antibiotic_time,
    CASE
        WHEN culture_first.specimen IS NULL AND culture_after.specimen IS NULL THEN 0
        ELSE 1
    END AS suspected_infection,
    CASE
        WHEN culture_first.specimen IS NULL AND culture_after.specimen IS NULL THEN NULL
        ELSE COALESCE(culture_first.culture_time, ab.antibiotic_time)
    END AS suspected_infection_time,
    COALESCE(culture_first.culture_time, culture_after.culture_time) AS culture_time,
    COALESCE(culture_first.specimen, culture_after.specimen) AS specimen,
    COALESCE(culture_first.positiveculture, culture_after.positiveculture) AS positive_culture
FROM ab_tbl AS ab
LEFT JOIN culture_then_ab AS culture_first
    ON ab.subject_id = culture_first.subject_id
    AND ab.ab_id = culture_first.ab_id
    AND culture_first.culture_rank = 1
LEFT JOIN ab_then_culture AS culture_after
    ON ab.subject_id = culture_after.subject_id
    AND ab.ab_id = culture_after.ab_id
    AND culture_after.culture_rank = 1
