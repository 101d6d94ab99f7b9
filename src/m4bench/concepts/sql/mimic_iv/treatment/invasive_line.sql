-- invasive_line: invasive lines (arterial, central venous, PA, dialysis catheters, ...) placed during a stay
-- Grain: one row per mimiciv_icu.procedureevents row with a line itemid
-- Inputs: mimiciv_icu.procedureevents, mimiciv_icu.d_items
-- Convention: line_type is the d_items label of the itemid; line_site is the charted location.
SELECT
    pe.stay_id,
    pe.itemid,
    di.label AS line_type,
    pe.location AS line_site,
    pe.starttime,
    pe.endtime
FROM mimiciv_icu.procedureevents AS pe
LEFT JOIN mimiciv_icu.d_items AS di ON pe.itemid = di.itemid
WHERE
    pe.itemid IN (
        227719, 225752, 224269, 224267, 224270, 224272, 226124, 228169, 225202, 228286, 225204, 224263,
        224560, 224264, 225203, 224273, 225789, 225761, 228201, 228202, 224268, 225199, 225315, 225205
    )
