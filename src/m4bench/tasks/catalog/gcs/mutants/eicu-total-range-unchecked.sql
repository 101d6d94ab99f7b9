-- KNOWN WRONG (mutant eicu-total-range-unchecked of reference-eicu.sql): charted totals outside 3-15 are used as they are.
-- Lowest Glasgow Coma Scale around the first unit day (eICU-CRD).
-- Reads: eicu_crd.patient, eicu_crd.nursecharting. Grain: one row per patient unit stay.
-- Times are minute offsets from unit admission; the window is offsets -360 to 1440, both
-- included. Charted text is parsed as a number with 3 decimals; text that is no number is
-- ignored. Per stay and offset the lowest charted total and the lowest eye, verbal and motor
-- responses are taken from the GCS rows (categories Scores and Other Vital Signs and
-- Infusions); an offset counts when any of the four is charted. A total outside 3-15 is
-- ignored; an offset without a valid total scores the sum of its components, a missing one
-- counted as normal (eyes 4, verbal 5, motor 6). The lowest offset total wins, ties going to
-- the earliest offset; its components are reported, a missing one as normal. A stay without
-- GCS charting in the window reports 15, 6, 5, 4.
WITH charted AS (
    SELECT
        patientunitstayid,
        nursingchartoffset AS chartoffset,
        MIN(
            CASE
                WHEN (nursingchartcelltypevallabel = 'Glasgow coma score'
                    AND nursingchartcelltypevalname = 'GCS Total')
                    OR (nursingchartcelltypevallabel = 'Score (Glasgow Coma Scale)'
                    AND nursingchartcelltypevalname = 'Value')
                    THEN TRY_CAST(nursingchartvalue AS NUMERIC)
            END
        ) AS total,
        MIN(
            CASE
                WHEN nursingchartcelltypevallabel = 'Glasgow coma score'
                    AND nursingchartcelltypevalname = 'Motor'
                    THEN TRY_CAST(nursingchartvalue AS NUMERIC)
            END
        ) AS motor,
        MIN(
            CASE
                WHEN nursingchartcelltypevallabel = 'Glasgow coma score'
                    AND nursingchartcelltypevalname = 'Verbal'
                    THEN TRY_CAST(nursingchartvalue AS NUMERIC)
            END
        ) AS verbal,
        MIN(
            CASE
                WHEN nursingchartcelltypevallabel = 'Glasgow coma score'
                    AND nursingchartcelltypevalname = 'Eyes'
                    THEN TRY_CAST(nursingchartvalue AS NUMERIC)
            END
        ) AS eyes
    FROM eicu_crd.nursecharting
    WHERE nursingchartcelltypecat IN ('Scores', 'Other Vital Signs and Infusions')
        AND nursingchartoffset >= -360
        AND nursingchartoffset <= 1440
    GROUP BY patientunitstayid, nursingchartoffset
),
per_offset AS (
    SELECT
        patientunitstayid,
        chartoffset,
        motor,
        verbal,
        eyes,
        COALESCE(
            total,
            COALESCE(eyes, 4) + COALESCE(motor, 6) + COALESCE(verbal, 5)
        ) AS gcs_total,
        ROW_NUMBER() OVER (
            PARTITION BY patientunitstayid
            ORDER BY
                COALESCE(
                    total,
                    COALESCE(eyes, 4) + COALESCE(motor, 6) + COALESCE(verbal, 5)
                ) ASC,
                chartoffset ASC
        ) AS pick
    FROM charted
    WHERE total IS NOT NULL OR motor IS NOT NULL OR verbal IS NOT NULL OR eyes IS NOT NULL
)
SELECT
    pt.patientunitstayid,
    pt.uniquepid,
    pt.patienthealthsystemstayid,
    CAST(COALESCE(po.gcs_total, 15) AS DOUBLE) AS gcs_min,
    CAST(COALESCE(po.motor, 6) AS DOUBLE) AS gcs_motor,
    CAST(COALESCE(po.verbal, 5) AS DOUBLE) AS gcs_verbal,
    CAST(COALESCE(po.eyes, 4) AS DOUBLE) AS gcs_eyes
FROM eicu_crd.patient AS pt
LEFT JOIN per_offset AS po
    ON po.patientunitstayid = pt.patientunitstayid
    AND po.pick = 1
