-- rrt: renal replacement therapy (dialysis) presence, activity and type at each charted or started time
-- Grain: one row per (charted point, matching therapy range); a point inside no range gives one row
-- Inputs: mimiciv_icu.chartevents, mimiciv_icu.inputevents, mimiciv_icu.procedureevents
-- Convention: every charted dialysis item means dialysis_present = 1; dialysis_active and dialysis_type come
--   from fixed item lists. Ranges (CRRT electrolyte inputs with amount > 0, dialysis procedures) add a point at
--   their start; each point takes the flags of every range of the stay covering it (start <= t <= end), a
--   range without a type keeping the point's type. Identical points collapse (distinct union).
WITH charted AS (
    SELECT
        stay_id,
        charttime,
        1 AS dialysis_present,
        CASE
            WHEN itemid = 225965 AND value = 'In use' THEN 1
            WHEN
                itemid IN (
                    226499, 224154, 225183, 227438, 224191, 225806, 225807, 228004, 228005, 228006, 224144,
                    224145, 224153, 226457
                )
                THEN 1
            ELSE 0
        END AS dialysis_active,
        CASE
            WHEN itemid = 227290 THEN value
            WHEN
                itemid IN (
                    225810, 225806, 225807, 227639, 225959, 225951, 225952, 225961, 225953, 225963, 225965,
                    227638, 227640
                )
                THEN 'Peritoneal'
            WHEN itemid = 226499 THEN 'IHD'
        END AS dialysis_type
    FROM mimiciv_icu.chartevents
    WHERE
        value IS NOT NULL
        AND itemid IN (
            226118, 227357, 225725,
            226499, 224154, 225810, 225959, 227639, 225183, 227438, 224191, 225806, 225807, 228004, 228005,
            228006, 224144, 224145, 224149, 224150, 224151, 224152, 224153, 224404, 224406, 226457,
            224135, 224139, 224146, 225323, 225740, 225776, 225951, 225952, 225953, 225954, 225956, 225958,
            225961, 225963, 225965, 225976, 225977, 227124, 227290, 227638, 227640, 227753
        )
),
ranges AS (
    SELECT
        stay_id,
        starttime,
        endtime,
        1 AS dialysis_present,
        1 AS dialysis_active,
        'CRRT' AS dialysis_type
    FROM mimiciv_icu.inputevents
    WHERE itemid IN (227536, 227525) AND amount > 0
    UNION
    SELECT
        stay_id,
        starttime,
        endtime,
        1 AS dialysis_present,
        CASE WHEN itemid IN (224270, 225436) THEN 0 ELSE 1 END AS dialysis_active,
        CASE
            WHEN itemid = 225441 THEN 'IHD'
            WHEN itemid = 225802 THEN 'CRRT'
            WHEN itemid = 225803 THEN 'CVVHD'
            WHEN itemid = 225805 THEN 'Peritoneal'
            WHEN itemid = 225809 THEN 'CVVHDF'
            WHEN itemid = 225955 THEN 'SCUF'
        END AS dialysis_type
    FROM mimiciv_icu.procedureevents
    WHERE
        value IS NOT NULL
        AND itemid IN (225441, 225802, 225803, 225805, 225809, 225955, 224270, 225436)
),
points AS (
    SELECT stay_id, charttime, dialysis_present, dialysis_active, dialysis_type FROM charted
    UNION
    SELECT stay_id, starttime AS charttime, dialysis_present, dialysis_active, dialysis_type FROM ranges
)
SELECT
    pt.stay_id,
    pt.charttime,
    COALESCE(rg.dialysis_present, pt.dialysis_present) AS dialysis_present,
    COALESCE(rg.dialysis_active, pt.dialysis_active) AS dialysis_active,
    COALESCE(rg.dialysis_type, pt.dialysis_type) AS dialysis_type
FROM points AS pt
LEFT JOIN ranges AS rg
    ON pt.stay_id = rg.stay_id
    AND pt.charttime >= rg.starttime
    AND pt.charttime <= rg.endtime
