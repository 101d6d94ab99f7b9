-- first_day_gcs: the lowest Glasgow Coma Scale of the first ICU day with its components
-- Grain: one row per ICU stay (stay_id); every icustays row, all NULL when no data
-- Inputs: mimiciv_icu.icustays left-joined to mimiciv_derived.gcs on stay_id with charttime in
-- [intime - 6 h, intime + 24 h]. The row with the lowest gcs gives gcs_min and the components.
-- Rows tied on the lowest gcs are broken by the earliest charttime (the reference leaves the tie
-- open; gcs_min is the same either way; first_day_gcs.ties.toml declares the other order).
WITH ranked AS (
    SELECT
        ie.subject_id,
        ie.stay_id,
        g.gcs,
        g.gcs_motor,
        g.gcs_verbal,
        g.gcs_eyes,
        g.gcs_unable,
        ROW_NUMBER() OVER (
            PARTITION BY ie.stay_id ORDER BY g.gcs NULLS LAST, g.charttime NULLS LAST
        ) AS pick
    FROM mimiciv_icu.icustays AS ie
    LEFT JOIN mimiciv_derived.gcs AS g
        ON ie.stay_id = g.stay_id
        AND g.charttime BETWEEN ie.intime - INTERVAL 6 HOUR AND ie.intime + INTERVAL 24 HOUR
)

SELECT
    subject_id,
    stay_id,
    gcs AS gcs_min,
    gcs_motor,
    gcs_verbal,
    gcs_eyes,
    gcs_unable
FROM ranked
WHERE pick = 1
