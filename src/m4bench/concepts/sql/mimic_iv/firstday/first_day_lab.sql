-- first_day_lab: minimum and maximum of each laboratory value over the first ICU day
-- Grain: one row per ICU stay (stay_id); every icustays row, all NULL when no labs
-- Inputs: mimiciv_icu.icustays and the lab panels mimiciv_derived.complete_blood_count,
-- chemistry, blood_differential, coagulation and enzyme, each matched on subject_id (not stay_id
-- or hadm_id, so a readmission within 6 h sees the earlier labs) with specimen charttime in
-- [intime - 6 h, intime + 24 h]. platelets_min/max read the CBC platelet column, wbc the CBC
-- white count (51301). Each panel is aggregated per stay on its own, then joined.
WITH cbc AS (
    SELECT
        ie.stay_id,
        MIN(p.hematocrit) AS hematocrit_min,
        MAX(p.hematocrit) AS hematocrit_max,
        MIN(p.hemoglobin) AS hemoglobin_min,
        MAX(p.hemoglobin) AS hemoglobin_max,
        MIN(p.platelet) AS platelets_min,
        MAX(p.platelet) AS platelets_max,
        MIN(p.wbc) AS wbc_min,
        MAX(p.wbc) AS wbc_max
    FROM mimiciv_icu.icustays AS ie
    INNER JOIN mimiciv_derived.complete_blood_count AS p
        ON ie.subject_id = p.subject_id
        AND p.charttime BETWEEN ie.intime - INTERVAL 6 HOUR AND ie.intime + INTERVAL 24 HOUR
    GROUP BY ie.stay_id
),

chem AS (
    SELECT
        ie.stay_id,
        MIN(p.albumin) AS albumin_min,
        MAX(p.albumin) AS albumin_max,
        MIN(p.globulin) AS globulin_min,
        MAX(p.globulin) AS globulin_max,
        MIN(p.total_protein) AS total_protein_min,
        MAX(p.total_protein) AS total_protein_max,
        MIN(p.aniongap) AS aniongap_min,
        MAX(p.aniongap) AS aniongap_max,
        MIN(p.bicarbonate) AS bicarbonate_min,
        MAX(p.bicarbonate) AS bicarbonate_max,
        MIN(p.bun) AS bun_min,
        MAX(p.bun) AS bun_max,
        MIN(p.calcium) AS calcium_min,
        MAX(p.calcium) AS calcium_max,
        MIN(p.chloride) AS chloride_min,
        MAX(p.chloride) AS chloride_max,
        MIN(p.creatinine) AS creatinine_min,
        MAX(p.creatinine) AS creatinine_max,
        MIN(p.glucose) AS glucose_min,
        MAX(p.glucose) AS glucose_max,
        MIN(p.sodium) AS sodium_min,
        MAX(p.sodium) AS sodium_max,
        MIN(p.potassium) AS potassium_min,
        MAX(p.potassium) AS potassium_max
    FROM mimiciv_icu.icustays AS ie
    INNER JOIN mimiciv_derived.chemistry AS p
        ON ie.subject_id = p.subject_id
        AND p.charttime BETWEEN ie.intime - INTERVAL 6 HOUR AND ie.intime + INTERVAL 24 HOUR
    GROUP BY ie.stay_id
),

diff AS (
    SELECT
        ie.stay_id,
        MIN(p.basophils_abs) AS abs_basophils_min,
        MAX(p.basophils_abs) AS abs_basophils_max,
        MIN(p.eosinophils_abs) AS abs_eosinophils_min,
        MAX(p.eosinophils_abs) AS abs_eosinophils_max,
        MIN(p.lymphocytes_abs) AS abs_lymphocytes_min,
        MAX(p.lymphocytes_abs) AS abs_lymphocytes_max,
        MIN(p.monocytes_abs) AS abs_monocytes_min,
        MAX(p.monocytes_abs) AS abs_monocytes_max,
        MIN(p.neutrophils_abs) AS abs_neutrophils_min,
        MAX(p.neutrophils_abs) AS abs_neutrophils_max,
        MIN(p.atypical_lymphocytes) AS atyps_min,
        MAX(p.atypical_lymphocytes) AS atyps_max,
        MIN(p.bands) AS bands_min,
        MAX(p.bands) AS bands_max,
        MIN(p.immature_granulocytes) AS imm_granulocytes_min,
        MAX(p.immature_granulocytes) AS imm_granulocytes_max,
        MIN(p.metamyelocytes) AS metas_min,
        MAX(p.metamyelocytes) AS metas_max,
        MIN(p.nrbc) AS nrbc_min,
        MAX(p.nrbc) AS nrbc_max
    FROM mimiciv_icu.icustays AS ie
    INNER JOIN mimiciv_derived.blood_differential AS p
        ON ie.subject_id = p.subject_id
        AND p.charttime BETWEEN ie.intime - INTERVAL 6 HOUR AND ie.intime + INTERVAL 24 HOUR
    GROUP BY ie.stay_id
),

coag AS (
    SELECT
        ie.stay_id,
        MIN(p.d_dimer) AS d_dimer_min,
        MAX(p.d_dimer) AS d_dimer_max,
        MIN(p.fibrinogen) AS fibrinogen_min,
        MAX(p.fibrinogen) AS fibrinogen_max,
        MIN(p.thrombin) AS thrombin_min,
        MAX(p.thrombin) AS thrombin_max,
        MIN(p.inr) AS inr_min,
        MAX(p.inr) AS inr_max,
        MIN(p.pt) AS pt_min,
        MAX(p.pt) AS pt_max,
        MIN(p.ptt) AS ptt_min,
        MAX(p.ptt) AS ptt_max
    FROM mimiciv_icu.icustays AS ie
    INNER JOIN mimiciv_derived.coagulation AS p
        ON ie.subject_id = p.subject_id
        AND p.charttime BETWEEN ie.intime - INTERVAL 6 HOUR AND ie.intime + INTERVAL 24 HOUR
    GROUP BY ie.stay_id
),

enz AS (
    SELECT
        ie.stay_id,
        MIN(p.alt) AS alt_min,
        MAX(p.alt) AS alt_max,
        MIN(p.alp) AS alp_min,
        MAX(p.alp) AS alp_max,
        MIN(p.ast) AS ast_min,
        MAX(p.ast) AS ast_max,
        MIN(p.amylase) AS amylase_min,
        MAX(p.amylase) AS amylase_max,
        MIN(p.bilirubin_total) AS bilirubin_total_min,
        MAX(p.bilirubin_total) AS bilirubin_total_max,
        MIN(p.bilirubin_direct) AS bilirubin_direct_min,
        MAX(p.bilirubin_direct) AS bilirubin_direct_max,
        MIN(p.bilirubin_indirect) AS bilirubin_indirect_min,
        MAX(p.bilirubin_indirect) AS bilirubin_indirect_max,
        MIN(p.ck_cpk) AS ck_cpk_min,
        MAX(p.ck_cpk) AS ck_cpk_max,
        MIN(p.ck_mb) AS ck_mb_min,
        MAX(p.ck_mb) AS ck_mb_max,
        MIN(p.ggt) AS ggt_min,
        MAX(p.ggt) AS ggt_max,
        MIN(p.ld_ldh) AS ld_ldh_min,
        MAX(p.ld_ldh) AS ld_ldh_max
    FROM mimiciv_icu.icustays AS ie
    INNER JOIN mimiciv_derived.enzyme AS p
        ON ie.subject_id = p.subject_id
        AND p.charttime BETWEEN ie.intime - INTERVAL 6 HOUR AND ie.intime + INTERVAL 24 HOUR
    GROUP BY ie.stay_id
)

SELECT
    ie.subject_id,
    ie.stay_id,
    cbc.hematocrit_min,
    cbc.hematocrit_max,
    cbc.hemoglobin_min,
    cbc.hemoglobin_max,
    cbc.platelets_min,
    cbc.platelets_max,
    cbc.wbc_min,
    cbc.wbc_max,
    chem.albumin_min,
    chem.albumin_max,
    chem.globulin_min,
    chem.globulin_max,
    chem.total_protein_min,
    chem.total_protein_max,
    chem.aniongap_min,
    chem.aniongap_max,
    chem.bicarbonate_min,
    chem.bicarbonate_max,
    chem.bun_min,
    chem.bun_max,
    chem.calcium_min,
    chem.calcium_max,
    chem.chloride_min,
    chem.chloride_max,
    chem.creatinine_min,
    chem.creatinine_max,
    chem.glucose_min,
    chem.glucose_max,
    chem.sodium_min,
    chem.sodium_max,
    chem.potassium_min,
    chem.potassium_max,
    diff.abs_basophils_min,
    diff.abs_basophils_max,
    diff.abs_eosinophils_min,
    diff.abs_eosinophils_max,
    diff.abs_lymphocytes_min,
    diff.abs_lymphocytes_max,
    diff.abs_monocytes_min,
    diff.abs_monocytes_max,
    diff.abs_neutrophils_min,
    diff.abs_neutrophils_max,
    diff.atyps_min,
    diff.atyps_max,
    diff.bands_min,
    diff.bands_max,
    diff.imm_granulocytes_min,
    diff.imm_granulocytes_max,
    diff.metas_min,
    diff.metas_max,
    diff.nrbc_min,
    diff.nrbc_max,
    coag.d_dimer_min,
    coag.d_dimer_max,
    coag.fibrinogen_min,
    coag.fibrinogen_max,
    coag.thrombin_min,
    coag.thrombin_max,
    coag.inr_min,
    coag.inr_max,
    coag.pt_min,
    coag.pt_max,
    coag.ptt_min,
    coag.ptt_max,
    enz.alt_min,
    enz.alt_max,
    enz.alp_min,
    enz.alp_max,
    enz.ast_min,
    enz.ast_max,
    enz.amylase_min,
    enz.amylase_max,
    enz.bilirubin_total_min,
    enz.bilirubin_total_max,
    enz.bilirubin_direct_min,
    enz.bilirubin_direct_max,
    enz.bilirubin_indirect_min,
    enz.bilirubin_indirect_max,
    enz.ck_cpk_min,
    enz.ck_cpk_max,
    enz.ck_mb_min,
    enz.ck_mb_max,
    enz.ggt_min,
    enz.ggt_max,
    enz.ld_ldh_min,
    enz.ld_ldh_max
FROM mimiciv_icu.icustays AS ie
LEFT JOIN cbc
    ON ie.stay_id = cbc.stay_id
LEFT JOIN chem
    ON ie.stay_id = chem.stay_id
LEFT JOIN diff
    ON ie.stay_id = diff.stay_id
LEFT JOIN coag
    ON ie.stay_id = coag.stay_id
LEFT JOIN enz
    ON ie.stay_id = enz.stay_id
