-- sepsis3: first Sepsis-3 onset per ICU stay: suspected infection with a SOFA of 2 or more around it
-- Grain: one row per ICU stay with at least one match (stays without a match are absent)
-- Inputs: suspicion_of_infection, sofa
-- Convention: a suspected infection (suspected_infection = 1, antibiotic started inside the stay) matches an
--   hourly SOFA row of the same stay with sofa_24hours >= 2 whose endtime lies in [suspected_infection_time
--   - 48 h, suspected_infection_time + 24 h]. The first match per stay by suspected_infection_time,
--   antibiotic_time, culture_time, SOFA endtime (NULLS FIRST) is kept; sofa_time is that SOFA endtime.
-- Convention: remaining ties are broken by ab_id so the chosen row is deterministic.
WITH sofa_hours AS (
    SELECT
        stay_id,
        endtime,
        respiration_24hours AS respiration,
        coagulation_24hours AS coagulation,
        liver_24hours AS liver,
        cardiovascular_24hours AS cardiovascular,
        cns_24hours AS cns,
        renal_24hours AS renal,
        sofa_24hours AS sofa_score
    FROM mimiciv_derived.sofa
    WHERE sofa_24hours >= 2
),
matches AS (
    SELECT
        soi.subject_id,
        soi.stay_id,
        soi.antibiotic_time,
        soi.culture_time,
        soi.suspected_infection_time,
        sh.endtime AS sofa_time,
        sh.sofa_score,
        sh.respiration,
        sh.coagulation,
        sh.liver,
        sh.cardiovascular,
        sh.cns,
        sh.renal,
        sh.sofa_score >= 2 AND soi.suspected_infection = 1 AS sepsis3,
        ROW_NUMBER() OVER (
            PARTITION BY soi.stay_id
            ORDER BY
                soi.suspected_infection_time NULLS FIRST,
                soi.antibiotic_time NULLS FIRST,
                soi.culture_time NULLS FIRST,
                sh.endtime NULLS FIRST,
                soi.ab_id
        ) AS match_rank
    FROM mimiciv_derived.suspicion_of_infection AS soi
    INNER JOIN sofa_hours AS sh
        ON soi.stay_id = sh.stay_id
        AND sh.endtime >= soi.suspected_infection_time - INTERVAL 48 HOUR
        AND sh.endtime <= soi.suspected_infection_time + INTERVAL 24 HOUR
    WHERE soi.stay_id IS NOT NULL
)
SELECT
    subject_id,
    stay_id,
    antibiotic_time,
    culture_time,
    suspected_infection_time,
    sofa_time,
    sofa_score,
    respiration,
    coagulation,
    liver,
    cardiovascular,
    cns,
    renal,
    sepsis3
FROM matches
WHERE match_rank = 1
