-- crrt: continuous renal replacement therapy settings and filter status charted per time
-- Grain: one row per (stay_id, charttime) with at least one CRRT chartevents row with a non-null value
-- Inputs: mimiciv_icu.chartevents
-- Convention: numeric settings are MAX(valuenum), text settings MAX(value); the system-active and clot flags
--   come from item 224146 (active 1 for Active/Initiated/Reinitiated/New Filter, 0 for Recirculating/
--   Discontinued; clots 1 Clots Present, 0 No Clot Present; clots_increasing and clotted 1 or NULL).
SELECT
    stay_id,
    charttime,
    MAX(CASE WHEN itemid = 227290 THEN value END) AS crrt_mode,
    MAX(
        CASE
            WHEN itemid = 224146 AND value IN ('Active', 'Initiated', 'Reinitiated', 'New Filter') THEN 1
            WHEN itemid = 224146 AND value IN ('Recirculating', 'Discontinued') THEN 0
        END
    ) AS system_active,
    MAX(
        CASE
            WHEN itemid = 224146 AND value = 'Clots Present' THEN 1
            WHEN itemid = 224146 AND value = 'No Clot Present' THEN 0
        END
    ) AS clots,
    MAX(
        CASE WHEN itemid = 224146 AND value IN ('Clots Increasing', 'Clot Increasing') THEN 1 END
    ) AS clots_increasing,
    MAX(CASE WHEN itemid = 224146 AND value = 'Clotted' THEN 1 END) AS clotted,
    MAX(CASE WHEN itemid = 224149 THEN valuenum END) AS access_pressure,
    MAX(CASE WHEN itemid = 224144 THEN valuenum END) AS blood_flow,
    MAX(CASE WHEN itemid = 228004 THEN valuenum END) AS citrate,
    MAX(CASE WHEN itemid = 225183 THEN valuenum END) AS current_goal,
    MAX(CASE WHEN itemid = 225977 THEN value END) AS dialysate_fluid,
    MAX(CASE WHEN itemid = 224154 THEN valuenum END) AS dialysate_rate,
    MAX(CASE WHEN itemid = 224151 THEN valuenum END) AS effluent_pressure,
    MAX(CASE WHEN itemid = 224150 THEN valuenum END) AS filter_pressure,
    MAX(CASE WHEN itemid = 225958 THEN value END) AS heparin_concentration,
    MAX(CASE WHEN itemid = 224145 THEN valuenum END) AS heparin_dose,
    MAX(CASE WHEN itemid = 224191 THEN valuenum END) AS hourly_patient_fluid_removal,
    MAX(CASE WHEN itemid = 228005 THEN valuenum END) AS prefilter_replacement_rate,
    MAX(CASE WHEN itemid = 228006 THEN valuenum END) AS postfilter_replacement_rate,
    MAX(CASE WHEN itemid = 225976 THEN value END) AS replacement_fluid,
    MAX(CASE WHEN itemid = 224153 THEN valuenum END) AS replacement_rate,
    MAX(CASE WHEN itemid = 224152 THEN valuenum END) AS return_pressure,
    MAX(CASE WHEN itemid = 226457 THEN valuenum END) AS ultrafiltrate_output
FROM mimiciv_icu.chartevents
WHERE
    value IS NOT NULL
    AND itemid IN (
        227290, 224146, 224149, 224144, 228004, 225183, 225977, 224154, 224151, 224150, 225958, 224145,
        224191, 228005, 228006, 225976, 224153, 224152, 226457
    )
GROUP BY stay_id, charttime
