-- nsaid: prescriptions of non-steroidal anti-inflammatory drugs
-- Grain: one row per mimiciv_hosp.prescriptions row whose lower-cased drug name contains an NSAID name
-- Inputs: mimiciv_hosp.prescriptions
-- Convention: generic names only; aspirin is not counted (in hospital it is overwhelmingly low-dose
--   antiplatelet use).
SELECT
    subject_id,
    hadm_id,
    drug AS nsaid,
    route,
    starttime,
    stoptime
FROM mimiciv_hosp.prescriptions
WHERE
    REGEXP_MATCHES(
        LOWER(drug),
        'ibuprofen|naproxen|ketorolac|diclofenac|indomethacin|celecoxib|meloxicam|ketoprofen|etodolac'
        || '|nabumetone|piroxicam|sulindac|flurbiprofen|oxaprozin|diflunisal|salsalate|mefenamic'
    )
