-- antibiotic: systemic antibiotic prescriptions, attached to the ICU stay they started in
-- Grain: one row per mimiciv_hosp.prescriptions row whose (drug, route) pair is an antibiotic pair
-- Inputs: mimiciv_hosp.prescriptions, mimiciv_icu.icustays
-- Convention: a (drug, route) pair is an antibiotic when some non-BASE row with that pair passes the route and
--   form exclusions (ophthalmic, otic, topical, creams, gels, desensitization) and the lower-cased drug name
--   contains one of the listed name fragments. Rows are then matched on (drug, route) alone, so a BASE row of an
--   antibiotic pair is included too; a NULL route or drug never matches.
-- Convention: stay_id is the stay of the same admission with intime <= starttime < outtime, else NULL.
WITH name_fragments AS (
    SELECT
        UNNEST([
            'adoxa', 'ala-tet', 'alodox', 'amikacin', 'amikin', 'amoxicill', 'amphotericin', 'anidulafungin',
            'ancef', 'clavulanate', 'ampicillin', 'augmentin', 'avelox', 'avidoxy', 'azactam',
            'azithromycin', 'aztreonam', 'axetil', 'bactocill', 'bactrim', 'bactroban', 'bethkis', 'biaxin',
            'bicillin l-a', 'cayston', 'cefazolin', 'cedax', 'cefoxitin', 'ceftazidime', 'cefaclor',
            'cefadroxil', 'cefdinir', 'cefditoren', 'cefepime', 'cefotan', 'cefotetan', 'cefotaxime',
            'ceftaroline', 'cefpodoxime', 'cefpirome', 'cefprozil', 'ceftibuten', 'ceftin', 'ceftriaxone',
            'cefuroxime', 'cephalexin', 'cephalothin', 'cephapririn', 'chloramphenicol', 'cipro',
            'ciprofloxacin', 'claforan', 'clarithromycin', 'cleocin', 'clindamycin', 'cubicin',
            'dicloxacillin', 'dirithromycin', 'doryx', 'doxycy', 'duricef', 'dynacin', 'ery-tab', 'eryped',
            'eryc', 'erythrocin', 'erythromycin', 'factive', 'flagyl', 'fortaz', 'furadantin', 'garamycin',
            'gentamicin', 'kanamycin', 'keflex', 'kefzol', 'ketek', 'levaquin', 'levofloxacin', 'lincocin',
            'linezolid', 'macrobid', 'macrodantin', 'maxipime', 'mefoxin', 'metronidazole', 'meropenem',
            'methicillin', 'minocin', 'minocycline', 'monodox', 'monurol', 'morgidox', 'moxatag',
            'moxifloxacin', 'mupirocin', 'myrac', 'nafcillin', 'neomycin', 'nicazel doxy 30',
            'nitrofurantoin', 'norfloxacin', 'noroxin', 'ocudox', 'ofloxacin', 'omnicef', 'oracea', 'oraxyl',
            'oxacillin', 'pc pen vk', 'pce dispertab', 'panixine', 'pediazole', 'penicillin', 'periostat',
            'pfizerpen', 'piperacillin', 'tazobactam', 'primsol', 'proquin', 'raniclor', 'rifadin',
            'rifampin', 'rocephin', 'smz-tmp', 'septra', 'septra ds', 'solodyn', 'spectracef',
            'streptomycin', 'sulfadiazine', 'sulfamethoxazole', 'trimethoprim', 'sulfatrim', 'sulfisoxazole',
            'suprax', 'synercid', 'tazicef', 'tetracycline', 'timentin', 'tobramycin', 'unasyn', 'vancocin',
            'vancomycin', 'vantin', 'vibativ', 'vibra-tabs', 'vibramycin', 'zinacef', 'zithromax', 'zosyn',
            'zyvox'
        ]) AS fragment
),
eligible_pairs AS (
    SELECT DISTINCT drug, route
    FROM mimiciv_hosp.prescriptions
    WHERE
        drug_type NOT IN ('BASE')
        AND route NOT IN ('OU', 'OS', 'OD', 'AU', 'AS', 'AD', 'TP')
        AND LOWER(route) NOT LIKE '%ear%'
        AND LOWER(route) NOT LIKE '%eye%'
        AND LOWER(drug) NOT LIKE '%cream%'
        AND LOWER(drug) NOT LIKE '%desensitization%'
        AND LOWER(drug) NOT LIKE '%ophth oint%'
        AND LOWER(drug) NOT LIKE '%gel%'
),
antibiotic_pairs AS (
    SELECT DISTINCT pair.drug, pair.route
    FROM eligible_pairs AS pair
    INNER JOIN name_fragments AS nf ON CONTAINS(LOWER(pair.drug), nf.fragment)
)
SELECT
    pr.subject_id,
    pr.hadm_id,
    ie.stay_id,
    pr.drug AS antibiotic,
    pr.route,
    pr.starttime,
    pr.stoptime
FROM mimiciv_hosp.prescriptions AS pr
INNER JOIN antibiotic_pairs AS ab
    ON pr.drug = ab.drug AND pr.route = ab.route
LEFT JOIN mimiciv_icu.icustays AS ie
    ON pr.hadm_id = ie.hadm_id
    AND pr.starttime >= ie.intime
    AND pr.starttime < ie.outtime
