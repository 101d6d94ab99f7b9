-- KNOWN WRONG (mutant missing-as-worst of reference.sql): a stay without GCS is scored as the worst (3, 1, 1, 1) instead of normal.
-- GCS in the first ICU day (MIMIC-IV).
-- Reads: mimiciv_icu.icustays, mimiciv_derived.gcs. Grain: one row per ICU stay.
-- The charted GCS row with the lowest total in [intime - 6 h, intime + 24 h] is chosen;
-- ties go to the earliest charttime, then the lowest motor, verbal, eyes and unable flag
-- (NULLs last). Missing components take their normal value (motor 6, verbal 5, eyes 4);
-- a stay with no GCS row in the window is scored fully normal (15, 6, 5, 4).
WITH candidates AS (
    SELECT
        ie.stay_id,
        g.gcs,
        g.gcs_motor,
        g.gcs_verbal,
        g.gcs_eyes,
        ROW_NUMBER() OVER (
            PARTITION BY ie.stay_id
            ORDER BY
                g.gcs ASC NULLS LAST,
                g.charttime ASC NULLS LAST,
                g.gcs_motor ASC NULLS LAST,
                g.gcs_verbal ASC NULLS LAST,
                g.gcs_eyes ASC NULLS LAST,
                g.gcs_unable ASC NULLS LAST
        ) AS pick
    FROM mimiciv_icu.icustays AS ie
    INNER JOIN mimiciv_derived.gcs AS g
        ON g.stay_id = ie.stay_id
        AND g.charttime >= ie.intime - INTERVAL 6 HOUR
        AND g.charttime <= ie.intime + INTERVAL 24 HOUR
)
SELECT
    ie.subject_id,
    ie.hadm_id,
    ie.stay_id,
    CAST(COALESCE(c.gcs, 3) AS DOUBLE) AS gcs_min,
    CAST(COALESCE(c.gcs_motor, 1) AS DOUBLE) AS gcs_motor,
    CAST(COALESCE(c.gcs_verbal, 1) AS DOUBLE) AS gcs_verbal,
    CAST(COALESCE(c.gcs_eyes, 1) AS DOUBLE) AS gcs_eyes
FROM mimiciv_icu.icustays AS ie
LEFT JOIN candidates AS c
    ON c.stay_id = ie.stay_id
    AND c.pick = 1
