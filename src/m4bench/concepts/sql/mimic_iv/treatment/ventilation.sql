-- ventilation: episodes of ventilation / oxygen therapy, classified by support type
-- Grain: one row per episode (stay_id, starttime); episodes of a single observation are dropped
-- Inputs: ventilator_setting, oxygen_delivery
-- Convention: each charted time of a stay gets a status from the first O2 delivery device (alphabetical first)
--   and the ventilator modes; a new episode starts when the status changes or the same status was last seen
--   14 h or more before. An episode ends at the next charted time of the stay (any status) unless that is
--   14 h or more later, in which case it ends at its own last row.
-- Convention: device strings are matched exactly, trailing spaces included ('Trach mask ', 'Bipap mask ', ...).
WITH timeline AS (
    SELECT stay_id, charttime FROM mimiciv_derived.ventilator_setting
    UNION
    SELECT stay_id, charttime FROM mimiciv_derived.oxygen_delivery
),
classified AS (
    SELECT
        tl.stay_id,
        tl.charttime,
        CASE
            WHEN od.o2_delivery_device_1 IN ('Tracheostomy tube', 'Trach mask ') THEN 'Tracheostomy'
            WHEN
                od.o2_delivery_device_1 = 'Endotracheal tube'
                OR vs.ventilator_mode IN (
                    '(S) CMV', 'APRV', 'APRV/Biphasic+ApnPress', 'APRV/Biphasic+ApnVol', 'APV (cmv)',
                    'Ambient', 'Apnea Ventilation', 'CMV', 'CMV/ASSIST', 'CMV/ASSIST/AutoFlow',
                    'CMV/AutoFlow', 'CPAP/PPS', 'CPAP/PSV', 'CPAP/PSV+Apn TCPL', 'CPAP/PSV+ApnPres',
                    'CPAP/PSV+ApnVol', 'MMV', 'MMV/AutoFlow', 'MMV/PSV', 'MMV/PSV/AutoFlow', 'P-CMV', 'PCV+',
                    'PCV+/PSV', 'PCV+Assist', 'PRES/AC', 'PRVC/AC', 'PRVC/SIMV', 'PSV/SBT', 'SIMV',
                    'SIMV/AutoFlow', 'SIMV/PRES', 'SIMV/PSV', 'SIMV/PSV/AutoFlow', 'SIMV/VOL',
                    'SYNCHRON MASTER', 'SYNCHRON SLAVE', 'VOL/AC'
                )
                OR vs.ventilator_mode_hamilton IN (
                    'APRV', 'APV (cmv)', 'Ambient', '(S) CMV', 'P-CMV', 'SIMV', 'APV (simv)', 'P-SIMV', 'VS', 'ASV'
                )
                THEN 'InvasiveVent'
            WHEN
                od.o2_delivery_device_1 IN ('Bipap mask ', 'CPAP mask ')
                OR vs.ventilator_mode_hamilton IN ('DuoPaP', 'NIV', 'NIV-ST')
                THEN 'NonInvasiveVent'
            WHEN od.o2_delivery_device_1 = 'High flow nasal cannula' THEN 'HFNC'
            WHEN
                od.o2_delivery_device_1 IN (
                    'Non-rebreather', 'Face tent', 'Aerosol-cool', 'Venti mask ', 'Medium conc mask ',
                    'Ultrasonic neb', 'Vapomist', 'Oxymizer', 'High flow neb', 'Nasal cannula'
                )
                THEN 'SupplementalOxygen'
            WHEN od.o2_delivery_device_1 = 'None' THEN 'None'
        END AS ventilation_status
    FROM timeline AS tl
    LEFT JOIN mimiciv_derived.ventilator_setting AS vs
        ON tl.stay_id = vs.stay_id AND tl.charttime = vs.charttime
    LEFT JOIN mimiciv_derived.oxygen_delivery AS od
        ON tl.stay_id = od.stay_id AND tl.charttime = od.charttime
),
neighbours AS (
    SELECT
        stay_id,
        charttime,
        ventilation_status,
        LAG(charttime) OVER (
            PARTITION BY stay_id, ventilation_status ORDER BY charttime
        ) AS prev_same_status_time,
        LAG(ventilation_status) OVER (PARTITION BY stay_id ORDER BY charttime) AS prev_status,
        LEAD(charttime) OVER (PARTITION BY stay_id ORDER BY charttime) AS next_time
    FROM classified
    WHERE ventilation_status IS NOT NULL
),
flagged AS (
    SELECT
        *,
        CASE
            WHEN prev_status IS NULL THEN 1
            WHEN DATE_DIFF('microseconds', prev_same_status_time, charttime) / 3.6e9 >= 14 THEN 1
            WHEN prev_status <> ventilation_status THEN 1
            ELSE 0
        END AS new_episode,
        CASE
            WHEN next_time IS NULL THEN charttime
            WHEN DATE_DIFF('microseconds', charttime, next_time) / 3.6e9 >= 14 THEN charttime
            ELSE next_time
        END AS row_endtime
    FROM neighbours
),
episodes AS (
    SELECT
        *,
        SUM(new_episode) OVER (
            PARTITION BY stay_id ORDER BY charttime ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS episode_number
    FROM flagged
)
SELECT
    stay_id,
    MIN(charttime) AS starttime,
    MAX(row_endtime) AS endtime,
    MAX(ventilation_status) AS ventilation_status
FROM episodes
GROUP BY stay_id, episode_number
HAVING MIN(charttime) <> MAX(charttime)
