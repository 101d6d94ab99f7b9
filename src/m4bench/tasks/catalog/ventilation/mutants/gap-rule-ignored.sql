-- KNOWN WRONG (mutant gap-rule-ignored of reference.sql): the 14-hour gap rule is ignored: same-status charting never splits an episode, and no time end is cut.
-- Ventilation episodes per ICU stay, classified by the most invasive support charted (MIMIC-IV).
-- Reads: mimiciv_derived.ventilator_setting, mimiciv_derived.oxygen_delivery.
-- Grain: one row per episode; key (stay_id, ventilation_seq), the episode's rank within its
-- stay by starttime (distinct within a stay).
-- Each charted time of a stay takes one status from the first O2 delivery device (devices are
-- ranked alphabetically) and the ventilator modes: Tracheostomy, then InvasiveVent, then
-- NonInvasiveVent, HFNC, SupplementalOxygen and None; other times are ignored. A new episode
-- starts at a stay's first classified time, when the status differs from the previous time's,
-- or when the last time with the same status is 14 h or more earlier. A time's end is the next
-- classified time of the stay unless that is 14 h or more later (then the time itself); an
-- episode ends at the latest end of its times. Episodes of a single charted time are dropped.
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
            WHEN od.o2_delivery_device_1 = 'Endotracheal tube'
                OR vs.ventilator_mode IN (
                    '(S) CMV', 'APRV', 'APRV/Biphasic+ApnPress', 'APRV/Biphasic+ApnVol',
                    'APV (cmv)', 'Ambient', 'Apnea Ventilation', 'CMV', 'CMV/ASSIST',
                    'CMV/ASSIST/AutoFlow', 'CMV/AutoFlow', 'CPAP/PPS', 'CPAP/PSV',
                    'CPAP/PSV+Apn TCPL', 'CPAP/PSV+ApnPres', 'CPAP/PSV+ApnVol', 'MMV',
                    'MMV/AutoFlow', 'MMV/PSV', 'MMV/PSV/AutoFlow', 'P-CMV', 'PCV+', 'PCV+/PSV',
                    'PCV+Assist', 'PRES/AC', 'PRVC/AC', 'PRVC/SIMV', 'PSV/SBT', 'SIMV',
                    'SIMV/AutoFlow', 'SIMV/PRES', 'SIMV/PSV', 'SIMV/PSV/AutoFlow', 'SIMV/VOL',
                    'SYNCHRON MASTER', 'SYNCHRON SLAVE', 'VOL/AC'
                )
                OR vs.ventilator_mode_hamilton IN (
                    'APRV', 'APV (cmv)', 'Ambient', '(S) CMV', 'P-CMV', 'SIMV', 'APV (simv)',
                    'P-SIMV', 'VS', 'ASV'
                )
                THEN 'InvasiveVent'
            WHEN od.o2_delivery_device_1 IN ('Bipap mask ', 'CPAP mask ')
                OR vs.ventilator_mode_hamilton IN ('DuoPaP', 'NIV', 'NIV-ST')
                THEN 'NonInvasiveVent'
            WHEN od.o2_delivery_device_1 = 'High flow nasal cannula' THEN 'HFNC'
            WHEN od.o2_delivery_device_1 IN (
                'Non-rebreather', 'Face tent', 'Aerosol-cool', 'Venti mask ', 'Medium conc mask ',
                'Ultrasonic neb', 'Vapomist', 'Oxymizer', 'High flow neb', 'Nasal cannula'
            ) THEN 'SupplementalOxygen'
            WHEN od.o2_delivery_device_1 = 'None' THEN 'None'
        END AS status
    FROM timeline AS tl
    LEFT JOIN mimiciv_derived.ventilator_setting AS vs
        ON vs.stay_id = tl.stay_id
        AND vs.charttime = tl.charttime
    LEFT JOIN mimiciv_derived.oxygen_delivery AS od
        ON od.stay_id = tl.stay_id
        AND od.charttime = tl.charttime
),
neighbours AS (
    SELECT
        stay_id,
        charttime,
        status,
        LAG(status) OVER (PARTITION BY stay_id ORDER BY charttime) AS previous_status,
        LAG(charttime) OVER (PARTITION BY stay_id, status ORDER BY charttime) AS previous_same,
        LEAD(charttime) OVER (PARTITION BY stay_id ORDER BY charttime) AS next_time
    FROM classified
    WHERE status IS NOT NULL
),
marked AS (
    SELECT
        stay_id,
        charttime,
        status,
        CASE
            WHEN previous_status IS NULL OR previous_status != status THEN 1
            ELSE 0
        END AS starts_episode,
        CASE
            WHEN next_time IS NULL THEN charttime
            ELSE next_time
        END AS time_end
    FROM neighbours
),
numbered AS (
    SELECT
        stay_id,
        charttime,
        status,
        time_end,
        SUM(starts_episode) OVER (
            PARTITION BY stay_id ORDER BY charttime ROWS UNBOUNDED PRECEDING
        ) AS episode
    FROM marked
),
episodes AS (
    SELECT
        stay_id,
        MIN(charttime) AS starttime,
        MAX(time_end) AS endtime,
        MIN(status) AS ventilation_status
    FROM numbered
    GROUP BY stay_id, episode
    HAVING MIN(charttime) < MAX(charttime)
)
SELECT
    stay_id,
    CAST(ROW_NUMBER() OVER (PARTITION BY stay_id ORDER BY starttime) AS INTEGER) AS ventilation_seq,
    starttime,
    endtime,
    ventilation_status
FROM episodes
