-- vitalsign: charted vital signs averaged per charting time
-- Grain: one row per (subject_id, stay_id, charttime) with a vital-sign item charted
-- Inputs: mimiciv_icu.chartevents with stay_id non-null. Each column is the average of the
-- qualifying rows at that time (bounds exclusive except spo2 <= 100): heart_rate 220045 (0-300);
-- sbp 220179/220050/225309 (0-400); dbp 220180/220051/225310 and mbp 220052/220181/225312 (0-300);
-- the _ni columns the non-invasive items only; resp_rate 220210/224690 (0-70); temperature 223761
-- (F, 70-120, converted to C) and 223762 (C, 10-50), averaged, cast to DECIMAL(18,3) and rounded
-- to 2 decimals; temperature_site = MAX text of 224642; spo2 220277 (0-100]; glucose
-- 225664/220621/226537 (> 0). A time with only out-of-range values yields an all-NULL row.
SELECT
    subject_id,
    stay_id,
    charttime,
    AVG(
        CASE WHEN itemid = 220045 AND valuenum > 0 AND valuenum < 300 THEN valuenum END
    ) AS heart_rate,
    AVG(
        CASE
            WHEN itemid IN (220179, 220050, 225309) AND valuenum > 0 AND valuenum < 400
                THEN valuenum
        END
    ) AS sbp,
    AVG(
        CASE
            WHEN itemid IN (220180, 220051, 225310) AND valuenum > 0 AND valuenum < 300
                THEN valuenum
        END
    ) AS dbp,
    AVG(
        CASE
            WHEN itemid IN (220052, 220181, 225312) AND valuenum > 0 AND valuenum < 300
                THEN valuenum
        END
    ) AS mbp,
    AVG(
        CASE WHEN itemid = 220179 AND valuenum > 0 AND valuenum < 400 THEN valuenum END
    ) AS sbp_ni,
    AVG(
        CASE WHEN itemid = 220180 AND valuenum > 0 AND valuenum < 300 THEN valuenum END
    ) AS dbp_ni,
    AVG(
        CASE WHEN itemid = 220181 AND valuenum > 0 AND valuenum < 300 THEN valuenum END
    ) AS mbp_ni,
    AVG(
        CASE
            WHEN itemid IN (220210, 224690) AND valuenum > 0 AND valuenum < 70 THEN valuenum
        END
    ) AS resp_rate,
    ROUND(
        TRY_CAST(
            AVG(
                CASE
                    WHEN itemid = 223761 AND valuenum > 70 AND valuenum < 120
                        THEN (valuenum - 32) / 1.8
                    WHEN itemid = 223762 AND valuenum > 10 AND valuenum < 50 THEN valuenum
                END
            ) AS DECIMAL(18, 3)
        ),
        2
    ) AS temperature,
    MAX(CASE WHEN itemid = 224642 THEN value END) AS temperature_site,
    AVG(
        CASE WHEN itemid = 220277 AND valuenum > 0 AND valuenum <= 100 THEN valuenum END
    ) AS spo2,
    AVG(
        CASE WHEN itemid IN (225664, 220621, 226537) AND valuenum > 0 THEN valuenum END
    ) AS glucose
FROM mimiciv_icu.chartevents
WHERE stay_id IS NOT NULL
    AND itemid IN (
        220045, 220179, 220050, 225309, 220180, 220051, 225310, 220052, 220181, 225312,
        220210, 224690, 223761, 223762, 224642, 220277, 225664, 220621, 226537
    )
GROUP BY subject_id, stay_id, charttime
