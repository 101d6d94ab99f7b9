-- ventilator_setting: ventilator settings and observations charted per subject and time
-- Grain: one row per (subject_id, charttime) with a ventilator item charted; stay_id = MAX
-- Inputs: mimiciv_icu.chartevents with value non-null and stay_id non-null, itemids 224688,
-- 224689, 224690, 224687, 224685, 224684, 224686, 224696, 220339, 224700, 223835, 223849, 229314,
-- 223848, 224691. FiO2 223835: [0.20, 1] x 100, (1, 20) NULL, [20, 100] as is, else NULL (note
-- the closed 0.20, open in bg). PEEP 220339/224700: below 0 or above 100 -> NULL. Each column is
-- the MAX over the group; the mode and type columns are text.
WITH converted AS (
    SELECT
        subject_id,
        stay_id,
        charttime,
        itemid,
        value,
        CASE
            WHEN itemid = 223835 AND valuenum >= 0.20 AND valuenum <= 1 THEN valuenum * 100
            WHEN itemid = 223835 AND valuenum >= 20 AND valuenum <= 100 THEN valuenum
            WHEN itemid = 223835 THEN NULL
            WHEN itemid IN (220339, 224700) AND (valuenum > 100 OR valuenum < 0) THEN NULL
            ELSE valuenum
        END AS valuenum
    FROM mimiciv_icu.chartevents
    WHERE value IS NOT NULL
        AND stay_id IS NOT NULL
        AND itemid IN (
            224688, 224689, 224690, 224687, 224685, 224684, 224686, 224696,
            220339, 224700, 223835, 223849, 229314, 223848, 224691
        )
)

SELECT
    subject_id,
    MAX(stay_id) AS stay_id,
    charttime,
    MAX(CASE WHEN itemid = 224688 THEN valuenum END) AS respiratory_rate_set,
    MAX(CASE WHEN itemid = 224690 THEN valuenum END) AS respiratory_rate_total,
    MAX(CASE WHEN itemid = 224689 THEN valuenum END) AS respiratory_rate_spontaneous,
    MAX(CASE WHEN itemid = 224687 THEN valuenum END) AS minute_volume,
    MAX(CASE WHEN itemid = 224684 THEN valuenum END) AS tidal_volume_set,
    MAX(CASE WHEN itemid = 224685 THEN valuenum END) AS tidal_volume_observed,
    MAX(CASE WHEN itemid = 224686 THEN valuenum END) AS tidal_volume_spontaneous,
    MAX(CASE WHEN itemid = 224696 THEN valuenum END) AS plateau_pressure,
    MAX(CASE WHEN itemid IN (220339, 224700) THEN valuenum END) AS peep,
    MAX(CASE WHEN itemid = 223835 THEN valuenum END) AS fio2,
    MAX(CASE WHEN itemid = 224691 THEN valuenum END) AS flow_rate,
    MAX(CASE WHEN itemid = 223849 THEN value END) AS ventilator_mode,
    MAX(CASE WHEN itemid = 229314 THEN value END) AS ventilator_mode_hamilton,
    MAX(CASE WHEN itemid = 223848 THEN value END) AS ventilator_type
FROM converted
GROUP BY subject_id, charttime
