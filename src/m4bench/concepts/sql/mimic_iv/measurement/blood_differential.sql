-- blood_differential: white cell differential (absolute counts and percentages) per lab specimen
-- Grain: one row per lab specimen (specimen_id)
-- Inputs: mimiciv_hosp.labevents rows of the differential items with valuenum non-null and >= 0;
-- per specimen subject_id, hadm_id, charttime = MAX and each item = MAX valuenum.
-- wbc = MAX over 51300, 51301, 51755. Absolute counts in K/uL: eosinophils 52073 or 51199 / 1000,
-- lymphocytes 51133 or 52769 / 1000, monocytes 52074 or 51253 / 1000, basophils 52069,
-- neutrophils 52075. A missing absolute count is imputed as percentage * wbc / 100 when its
-- percentage is present, wbc > 0 and the six percentage items (51146, 51200, 51244, 51245, 51254,
-- 51256) sum to more than 0. Absolute counts are cast to DECIMAL(18,3) (3 decimals); percentages
-- are unrounded.
WITH specimen AS (
    SELECT
        MAX(subject_id) AS subject_id,
        MAX(hadm_id) AS hadm_id,
        MAX(charttime) AS charttime,
        specimen_id,
        MAX(CASE WHEN itemid IN (51300, 51301, 51755) THEN valuenum END) AS wbc,
        MAX(CASE WHEN itemid = 52069 THEN valuenum END) AS basophils_abs,
        MAX(
            CASE
                WHEN itemid = 52073 THEN valuenum
                WHEN itemid = 51199 THEN valuenum / 1000
            END
        ) AS eosinophils_abs,
        MAX(
            CASE
                WHEN itemid = 51133 THEN valuenum
                WHEN itemid = 52769 THEN valuenum / 1000
            END
        ) AS lymphocytes_abs,
        MAX(
            CASE
                WHEN itemid = 52074 THEN valuenum
                WHEN itemid = 51253 THEN valuenum / 1000
            END
        ) AS monocytes_abs,
        MAX(CASE WHEN itemid = 52075 THEN valuenum END) AS neutrophils_abs,
        MAX(CASE WHEN itemid = 51146 THEN valuenum END) AS basophils,
        MAX(CASE WHEN itemid = 51200 THEN valuenum END) AS eosinophils,
        MAX(CASE WHEN itemid IN (51244, 51245) THEN valuenum END) AS lymphocytes,
        MAX(CASE WHEN itemid = 51254 THEN valuenum END) AS monocytes,
        MAX(CASE WHEN itemid = 51256 THEN valuenum END) AS neutrophils,
        MAX(CASE WHEN itemid = 51143 THEN valuenum END) AS atypical_lymphocytes,
        MAX(CASE WHEN itemid = 51144 THEN valuenum END) AS bands,
        MAX(CASE WHEN itemid = 52135 THEN valuenum END) AS immature_granulocytes,
        MAX(CASE WHEN itemid = 51251 THEN valuenum END) AS metamyelocytes,
        MAX(CASE WHEN itemid = 51257 THEN valuenum END) AS nrbc,
        COALESCE(
            SUM(
                CASE
                    WHEN itemid IN (51146, 51200, 51244, 51245, 51254, 51256) THEN valuenum
                END
            ),
            0
        ) > 0 AS has_percentages
    FROM mimiciv_hosp.labevents
    WHERE itemid IN (
            51300, 51301, 51755, 52069, 52073, 51199, 51133, 52769, 52074, 51253, 52075, 51218,
            51146, 51200, 51244, 51245, 51254, 51256, 51143, 51144, 52135, 51251, 51257
        )
        AND valuenum IS NOT NULL
        AND valuenum >= 0
    GROUP BY specimen_id
)

SELECT
    subject_id,
    hadm_id,
    charttime,
    specimen_id,
    wbc,
    ROUND(TRY_CAST(
        CASE
            WHEN basophils_abs IS NULL AND basophils IS NOT NULL AND wbc > 0 AND has_percentages
                THEN basophils * wbc / 100
            ELSE basophils_abs
        END AS DECIMAL(18, 3)
    ), 4) AS basophils_abs,
    ROUND(TRY_CAST(
        CASE
            WHEN eosinophils_abs IS NULL AND eosinophils IS NOT NULL AND wbc > 0 AND has_percentages
                THEN eosinophils * wbc / 100
            ELSE eosinophils_abs
        END AS DECIMAL(18, 3)
    ), 4) AS eosinophils_abs,
    ROUND(TRY_CAST(
        CASE
            WHEN lymphocytes_abs IS NULL AND lymphocytes IS NOT NULL AND wbc > 0 AND has_percentages
                THEN lymphocytes * wbc / 100
            ELSE lymphocytes_abs
        END AS DECIMAL(18, 3)
    ), 4) AS lymphocytes_abs,
    ROUND(TRY_CAST(
        CASE
            WHEN monocytes_abs IS NULL AND monocytes IS NOT NULL AND wbc > 0 AND has_percentages
                THEN monocytes * wbc / 100
            ELSE monocytes_abs
        END AS DECIMAL(18, 3)
    ), 4) AS monocytes_abs,
    ROUND(TRY_CAST(
        CASE
            WHEN neutrophils_abs IS NULL AND neutrophils IS NOT NULL AND wbc > 0 AND has_percentages
                THEN neutrophils * wbc / 100
            ELSE neutrophils_abs
        END AS DECIMAL(18, 3)
    ), 4) AS neutrophils_abs,
    basophils,
    eosinophils,
    lymphocytes,
    monocytes,
    neutrophils,
    atypical_lymphocytes,
    bands,
    immature_granulocytes,
    metamyelocytes,
    nrbc
FROM specimen
