-- KNOWN WRONG (mutant positive-culture-required of reference.sql): sepsis is flagged only when the culture grew an organism.
-- Sepsis-3 onset per ICU stay: a suspected infection with a SOFA of 2 or more around it (MIMIC-IV).
-- Reads: mimiciv_derived.suspicion_of_infection (its own culture ordering: on one date a timed
-- culture precedes a date-only one), mimiciv_derived.sofa (hourly, rolling 24-hour worst).
-- Grain: one row per ICU stay with at least one match; stays without one are absent.
-- A suspected infection (suspected_infection = 1, antibiotic started inside an ICU stay)
-- matches an hourly SOFA row of the same stay with sofa_24hours >= 2 whose hour ends in
-- [suspected_infection_time - 48 h, suspected_infection_time + 24 h]. The first match per stay
-- by suspected_infection_time, antibiotic_time, culture_time, SOFA end time (ascending, NULLs
-- first), then ab_id, is kept. sepsis3 is always 1.
WITH matches AS (
    SELECT
        si.subject_id,
        si.stay_id,
        si.antibiotic_time,
        si.culture_time,
        si.suspected_infection_time,
        si.positive_culture,
        so.endtime AS sofa_time,
        so.sofa_24hours AS sofa_score,
        so.respiration_24hours AS respiration,
        so.coagulation_24hours AS coagulation,
        so.liver_24hours AS liver,
        so.cardiovascular_24hours AS cardiovascular,
        so.cns_24hours AS cns,
        so.renal_24hours AS renal,
        ROW_NUMBER() OVER (
            PARTITION BY si.stay_id
            ORDER BY
                si.suspected_infection_time ASC NULLS FIRST,
                si.antibiotic_time ASC NULLS FIRST,
                si.culture_time ASC NULLS FIRST,
                so.endtime ASC NULLS FIRST,
                si.ab_id ASC
        ) AS pick
    FROM mimiciv_derived.suspicion_of_infection AS si
    INNER JOIN mimiciv_derived.sofa AS so
        ON so.stay_id = si.stay_id
        AND so.sofa_24hours >= 2
        AND so.endtime >= si.suspected_infection_time - INTERVAL 48 HOUR
        AND so.endtime <= si.suspected_infection_time + INTERVAL 24 HOUR
    WHERE si.stay_id IS NOT NULL
        AND si.suspected_infection = 1
)
SELECT
    subject_id,
    stay_id,
    antibiotic_time,
    culture_time,
    suspected_infection_time,
    sofa_time,
    CAST(sofa_score AS INTEGER) AS sofa_score,
    CAST(respiration AS INTEGER) AS respiration,
    CAST(coagulation AS INTEGER) AS coagulation,
    CAST(liver AS INTEGER) AS liver,
    CAST(cardiovascular AS INTEGER) AS cardiovascular,
    CAST(cns AS INTEGER) AS cns,
    CAST(renal AS INTEGER) AS renal,
    CAST(COALESCE(positive_culture, 0) AS INTEGER) AS sepsis3
FROM matches
WHERE pick = 1
