-- oxygen_delivery: oxygen flow and up to four delivery devices per subject and time
-- Grain: one row per (subject_id, charttime) with an O2 flow charted; stay_id = MAX
-- Inputs: mimiciv_icu.chartevents. Flow rows: value non-null, 223834 and 227582 (both o2_flow)
-- and 227287 (o2_flow_additional); per (subject_id, charttime, flow item) the row with the latest
-- storetime is kept (NULL storetime last, then the higher value). Device rows: 226732, numbered
-- per (subject_id, charttime) by text value ascending, NULL first. Devices attach to flow rows of
-- the same subject and time; a device charted without any flow at that time is dropped (kept quirk).
WITH flow_rows AS (
    SELECT
        subject_id,
        stay_id,
        charttime,
        CASE WHEN itemid = 227287 THEN 227287 ELSE 223834 END AS flow_item,
        valuenum
    FROM mimiciv_icu.chartevents
    WHERE itemid IN (223834, 227582, 227287)
        AND value IS NOT NULL
    QUALIFY ROW_NUMBER() OVER (
        PARTITION BY subject_id, charttime, CASE WHEN itemid = 227287 THEN 227287 ELSE 223834 END
        ORDER BY storetime DESC NULLS LAST, valuenum DESC NULLS LAST, itemid
    ) = 1
),

devices AS (
    SELECT
        subject_id,
        charttime,
        value AS device,
        ROW_NUMBER() OVER (
            PARTITION BY subject_id, charttime ORDER BY value ASC NULLS FIRST
        ) AS device_seq
    FROM mimiciv_icu.chartevents
    WHERE itemid = 226732
),

joined AS (
    SELECT
        flow.subject_id,
        flow.stay_id,
        flow.charttime,
        flow.flow_item,
        flow.valuenum,
        dev.device,
        dev.device_seq
    FROM flow_rows AS flow
    LEFT JOIN devices AS dev
        ON flow.subject_id = dev.subject_id
        AND flow.charttime = dev.charttime
)

SELECT
    subject_id,
    MAX(stay_id) AS stay_id,
    charttime,
    MAX(CASE WHEN flow_item = 223834 THEN valuenum END) AS o2_flow,
    MAX(CASE WHEN flow_item = 227287 THEN valuenum END) AS o2_flow_additional,
    MAX(CASE WHEN device_seq = 1 THEN device END) AS o2_delivery_device_1,
    MAX(CASE WHEN device_seq = 2 THEN device END) AS o2_delivery_device_2,
    MAX(CASE WHEN device_seq = 3 THEN device END) AS o2_delivery_device_3,
    MAX(CASE WHEN device_seq = 4 THEN device END) AS o2_delivery_device_4
FROM joined
GROUP BY subject_id, charttime
