-- bg: blood gas values per specimen with pO2, with charted FiO2 and derived P/F ratio and A-a gradient
-- Grain: one row per (subject_id, charttime) of a blood-gas specimen with a non-null po2
-- Inputs: mimiciv_hosp.labevents items 52033 and 50801-50825 except 50812 (no row filter), per
-- specimen MAX of ids, charttime and each item (text MAX for specimen 52033); bounds: glucose and
-- lactate <= 10000, hematocrit <= 100, so2 <= 100; lab FiO2 50816: (20, 100] kept, (0.2, 1] x 100,
-- else NULL. Only specimens with po2 are kept.
-- fio2_chartevents: mimiciv_icu.chartevents 223835 (0 < v <= 100; (0.2, 1] x 100, [20, 100] as is,
-- else NULL), MAX per (subject_id, charttime); the value at the latest such charttime with a non-null
-- value in [charttime - 4 h, charttime].
-- F = fio2 if present else fio2_chartevents; aado2_calc = F/100 * 713 - pco2/0.8 - po2 and
-- pao2fio2ratio = 100 * po2 / F (NULL when an input is NULL); nothing is rounded.
-- Specimens of one subject sharing a charttime collapse to one row (the reference numbers rows per
-- subject and charttime); the survivor is the lowest specimen_id (a tie point: bg.ties.toml
-- declares the other order, admitted by the scorer). The SpO2 look-back of the
-- reference is left out: its value is never output and it removes no rows.
WITH specimen AS (
    SELECT
        MAX(subject_id) AS subject_id,
        MAX(hadm_id) AS hadm_id,
        MAX(charttime) AS charttime,
        specimen_id,
        MAX(CASE WHEN itemid = 52033 THEN value END) AS specimen,
        MAX(CASE WHEN itemid = 50801 THEN valuenum END) AS aado2,
        MAX(CASE WHEN itemid = 50802 THEN valuenum END) AS baseexcess,
        MAX(CASE WHEN itemid = 50803 THEN valuenum END) AS bicarbonate,
        MAX(CASE WHEN itemid = 50804 THEN valuenum END) AS totalco2,
        MAX(CASE WHEN itemid = 50805 THEN valuenum END) AS carboxyhemoglobin,
        MAX(CASE WHEN itemid = 50806 THEN valuenum END) AS chloride,
        MAX(CASE WHEN itemid = 50808 THEN valuenum END) AS calcium,
        MAX(CASE WHEN itemid = 50809 AND valuenum <= 10000 THEN valuenum END) AS glucose,
        MAX(CASE WHEN itemid = 50810 AND valuenum <= 100 THEN valuenum END) AS hematocrit,
        MAX(CASE WHEN itemid = 50811 THEN valuenum END) AS hemoglobin,
        MAX(CASE WHEN itemid = 50813 AND valuenum <= 10000 THEN valuenum END) AS lactate,
        MAX(CASE WHEN itemid = 50814 THEN valuenum END) AS methemoglobin,
        MAX(
            CASE
                WHEN itemid <> 50816 THEN NULL
                WHEN valuenum > 20 AND valuenum <= 100 THEN valuenum
                WHEN valuenum > 0.2 AND valuenum <= 1.0 THEN valuenum * 100.0
            END
        ) AS fio2,
        MAX(CASE WHEN itemid = 50817 AND valuenum <= 100 THEN valuenum END) AS so2,
        MAX(CASE WHEN itemid = 50818 THEN valuenum END) AS pco2,
        MAX(CASE WHEN itemid = 50820 THEN valuenum END) AS ph,
        MAX(CASE WHEN itemid = 50821 THEN valuenum END) AS po2,
        MAX(CASE WHEN itemid = 50822 THEN valuenum END) AS potassium,
        MAX(CASE WHEN itemid = 50824 THEN valuenum END) AS sodium,
        MAX(CASE WHEN itemid = 50825 THEN valuenum END) AS temperature
    FROM mimiciv_hosp.labevents
    WHERE itemid = 52033
        OR (itemid BETWEEN 50801 AND 50825 AND itemid <> 50812)
    GROUP BY specimen_id
),

charted_fio2 AS (
    SELECT
        subject_id,
        charttime,
        MAX(
            CASE
                WHEN valuenum > 0.2 AND valuenum <= 1 THEN valuenum * 100
                WHEN valuenum >= 20 AND valuenum <= 100 THEN valuenum
            END
        ) AS fio2_chartevents
    FROM mimiciv_icu.chartevents
    WHERE itemid = 223835
        AND valuenum > 0
        AND valuenum <= 100
    GROUP BY subject_id, charttime
),

ranked AS (
    SELECT
        gas.*,
        fio2.fio2_chartevents,
        ROW_NUMBER() OVER (
            PARTITION BY gas.subject_id, gas.charttime
            ORDER BY fio2.charttime DESC NULLS LAST, gas.specimen_id
        ) AS pick
    FROM specimen AS gas
    LEFT JOIN charted_fio2 AS fio2
        ON gas.subject_id = fio2.subject_id
        AND fio2.fio2_chartevents IS NOT NULL
        AND fio2.charttime BETWEEN gas.charttime - INTERVAL 4 HOUR AND gas.charttime
    WHERE gas.po2 IS NOT NULL
)

SELECT
    subject_id,
    hadm_id,
    charttime,
    specimen,
    so2,
    po2,
    pco2,
    fio2_chartevents,
    fio2,
    aado2,
    CASE
        WHEN po2 IS NULL OR pco2 IS NULL OR COALESCE(fio2, fio2_chartevents) IS NULL THEN NULL
        ELSE COALESCE(fio2, fio2_chartevents) / 100 * (760 - 47) - pco2 / 0.8 - po2
    END AS aado2_calc,
    CASE
        WHEN po2 IS NULL OR COALESCE(fio2, fio2_chartevents) IS NULL THEN NULL
        ELSE 100 * po2 / COALESCE(fio2, fio2_chartevents)
    END AS pao2fio2ratio,
    ph,
    baseexcess,
    bicarbonate,
    totalco2,
    hematocrit,
    hemoglobin,
    carboxyhemoglobin,
    methemoglobin,
    chloride,
    calcium,
    temperature,
    potassium,
    sodium,
    lactate,
    glucose
FROM ranked
WHERE pick = 1
