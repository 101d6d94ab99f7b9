"""MIMIC-IV v3.1 ``mimiciv_hosp`` tables (types as described in ``mimic_iv``)."""

from __future__ import annotations

from m4bench.sources.schema.spec import table

HOSP = "mimiciv_hosp"

HOSP_TABLES = (
    table(
        HOSP,
        "admissions",
        """
        subject_id INTEGER NN
        hadm_id INTEGER NN
        admittime TIMESTAMP NN
        dischtime TIMESTAMP
        deathtime TIMESTAMP
        admission_type VARCHAR NN
        admit_provider_id VARCHAR
        admission_location VARCHAR
        discharge_location VARCHAR
        insurance VARCHAR
        language VARCHAR
        marital_status VARCHAR
        race VARCHAR
        edregtime TIMESTAMP
        edouttime TIMESTAMP
        hospital_expire_flag SMALLINT
        """,
        primary_key=("hadm_id",),
        description="one row per hospital admission",
    ),
    table(
        HOSP,
        "d_hcpcs",
        """
        code VARCHAR NN
        category SMALLINT
        long_description VARCHAR
        short_description VARCHAR
        """,
        primary_key=("code",),
        description="HCPCS code dictionary",
    ),
    table(
        HOSP,
        "d_icd_diagnoses",
        """
        icd_code VARCHAR NN
        icd_version SMALLINT NN
        long_title VARCHAR
        """,
        primary_key=("icd_code", "icd_version"),
        description="ICD-9/ICD-10 diagnosis dictionary",
    ),
    table(
        HOSP,
        "d_icd_procedures",
        """
        icd_code VARCHAR NN
        icd_version SMALLINT NN
        long_title VARCHAR
        """,
        primary_key=("icd_code", "icd_version"),
        description="ICD-9/ICD-10 procedure dictionary",
    ),
    table(
        HOSP,
        "d_labitems",
        """
        itemid INTEGER NN
        label VARCHAR
        fluid VARCHAR
        category VARCHAR
        """,
        primary_key=("itemid",),
        description="laboratory item dictionary",
    ),
    table(
        HOSP,
        "diagnoses_icd",
        """
        subject_id INTEGER NN
        hadm_id INTEGER NN
        seq_num INTEGER NN
        icd_code VARCHAR
        icd_version SMALLINT
        """,
        primary_key=("hadm_id", "seq_num", "icd_code", "icd_version"),
        description="billed diagnoses per admission",
    ),
    table(
        HOSP,
        "drgcodes",
        """
        subject_id INTEGER NN
        hadm_id INTEGER NN
        drg_type VARCHAR
        drg_code VARCHAR NN
        description VARCHAR
        drg_severity SMALLINT
        drg_mortality SMALLINT
        """,
        description="diagnosis related groups per admission",
    ),
    table(
        HOSP,
        "emar",
        """
        subject_id INTEGER NN
        hadm_id INTEGER
        emar_id VARCHAR NN
        emar_seq INTEGER NN
        poe_id VARCHAR NN
        pharmacy_id INTEGER
        enter_provider_id VARCHAR
        charttime TIMESTAMP NN
        medication VARCHAR
        event_txt VARCHAR
        scheduletime TIMESTAMP
        storetime TIMESTAMP NN
        """,
        primary_key=("emar_id",),
        description="electronic medication administration record",
    ),
    table(
        HOSP,
        "emar_detail",
        """
        subject_id INTEGER NN
        emar_id VARCHAR NN
        emar_seq INTEGER NN
        parent_field_ordinal VARCHAR
        administration_type VARCHAR
        pharmacy_id INTEGER
        barcode_type VARCHAR
        reason_for_no_barcode VARCHAR
        complete_dose_not_given VARCHAR
        dose_due VARCHAR
        dose_due_unit VARCHAR
        dose_given VARCHAR
        dose_given_unit VARCHAR
        will_remainder_of_dose_be_given VARCHAR
        product_amount_given VARCHAR
        product_unit VARCHAR
        product_code VARCHAR
        product_description VARCHAR
        product_description_other VARCHAR
        prior_infusion_rate VARCHAR
        infusion_rate VARCHAR
        infusion_rate_adjustment VARCHAR
        infusion_rate_adjustment_amount VARCHAR
        infusion_rate_unit VARCHAR
        route VARCHAR
        infusion_complete VARCHAR
        completion_interval VARCHAR
        new_iv_bag_hung VARCHAR
        continued_infusion_in_other_location VARCHAR
        restart_interval VARCHAR
        side VARCHAR
        site VARCHAR
        non_formulary_visual_verification VARCHAR
        """,
        description="details of each medication administration",
    ),
    table(
        HOSP,
        "hcpcsevents",
        """
        subject_id INTEGER NN
        hadm_id INTEGER NN
        chartdate DATE
        hcpcs_cd VARCHAR NN
        seq_num INTEGER NN
        short_description VARCHAR
        """,
        primary_key=("hadm_id", "hcpcs_cd", "seq_num"),
        description="billed HCPCS events per admission",
    ),
    table(
        HOSP,
        "labevents",
        """
        labevent_id INTEGER NN
        subject_id INTEGER NN
        hadm_id INTEGER
        specimen_id INTEGER NN
        itemid INTEGER NN
        order_provider_id VARCHAR
        charttime TIMESTAMP
        storetime TIMESTAMP
        value VARCHAR
        valuenum DOUBLE
        valueuom VARCHAR
        ref_range_lower DOUBLE
        ref_range_upper DOUBLE
        flag VARCHAR
        priority VARCHAR
        comments VARCHAR
        """,
        primary_key=("labevent_id",),
        description="laboratory measurements",
    ),
    table(
        HOSP,
        "microbiologyevents",
        """
        microevent_id INTEGER NN
        subject_id INTEGER NN
        hadm_id INTEGER
        micro_specimen_id INTEGER NN
        order_provider_id VARCHAR
        chartdate TIMESTAMP NN
        charttime TIMESTAMP
        spec_itemid INTEGER NN
        spec_type_desc VARCHAR NN
        test_seq INTEGER NN
        storedate TIMESTAMP
        storetime TIMESTAMP
        test_itemid INTEGER
        test_name VARCHAR
        org_itemid INTEGER
        org_name VARCHAR
        isolate_num SMALLINT
        quantity VARCHAR
        ab_itemid INTEGER
        ab_name VARCHAR
        dilution_text VARCHAR
        dilution_comparison VARCHAR
        dilution_value DOUBLE
        interpretation VARCHAR
        comments VARCHAR
        """,
        primary_key=("microevent_id",),
        description="microbiology cultures and susceptibilities",
    ),
    table(
        HOSP,
        "omr",
        """
        subject_id INTEGER NN
        chartdate DATE NN
        seq_num INTEGER NN
        result_name VARCHAR NN
        result_value VARCHAR NN
        """,
        primary_key=("subject_id", "chartdate", "result_name", "seq_num"),
        description="online medical record: outpatient measurements",
    ),
    table(
        HOSP,
        "patients",
        """
        subject_id INTEGER NN
        gender VARCHAR NN
        anchor_age SMALLINT
        anchor_year SMALLINT NN
        anchor_year_group VARCHAR NN
        dod DATE
        """,
        primary_key=("subject_id",),
        description="one row per patient",
    ),
    table(
        HOSP,
        "pharmacy",
        """
        subject_id INTEGER NN
        hadm_id INTEGER NN
        pharmacy_id INTEGER NN
        poe_id VARCHAR
        starttime TIMESTAMP
        stoptime TIMESTAMP
        medication VARCHAR
        proc_type VARCHAR NN
        status VARCHAR
        entertime TIMESTAMP NN
        verifiedtime TIMESTAMP
        route VARCHAR
        frequency VARCHAR
        disp_sched VARCHAR
        infusion_type VARCHAR
        sliding_scale VARCHAR
        lockout_interval VARCHAR
        basal_rate DOUBLE
        one_hr_max VARCHAR
        doses_per_24_hrs DOUBLE
        duration DOUBLE
        duration_interval VARCHAR
        expiration_value INTEGER
        expiration_unit VARCHAR
        expirationdate TIMESTAMP
        dispensation VARCHAR
        fill_quantity VARCHAR
        """,
        primary_key=("pharmacy_id",),
        description="pharmacy orders",
    ),
    table(
        HOSP,
        "poe",
        """
        poe_id VARCHAR NN
        poe_seq INTEGER NN
        subject_id INTEGER NN
        hadm_id INTEGER
        ordertime TIMESTAMP NN
        order_type VARCHAR NN
        order_subtype VARCHAR
        transaction_type VARCHAR
        discontinue_of_poe_id VARCHAR
        discontinued_by_poe_id VARCHAR
        order_provider_id VARCHAR
        order_status VARCHAR
        """,
        primary_key=("poe_id",),
        description="provider order entry",
    ),
    table(
        HOSP,
        "poe_detail",
        """
        poe_id VARCHAR NN
        poe_seq INTEGER NN
        subject_id INTEGER NN
        field_name VARCHAR NN
        field_value VARCHAR
        """,
        primary_key=("poe_id", "field_name"),
        description="details of provider orders",
    ),
    table(
        HOSP,
        "prescriptions",
        """
        subject_id INTEGER NN
        hadm_id INTEGER NN
        pharmacy_id INTEGER NN
        poe_id VARCHAR
        poe_seq INTEGER
        order_provider_id VARCHAR
        starttime TIMESTAMP
        stoptime TIMESTAMP
        drug_type VARCHAR NN
        drug VARCHAR NN
        formulary_drug_cd VARCHAR
        gsn VARCHAR
        ndc VARCHAR
        prod_strength VARCHAR
        form_rx VARCHAR
        dose_val_rx VARCHAR
        dose_unit_rx VARCHAR
        form_val_disp VARCHAR
        form_unit_disp VARCHAR
        doses_per_24_hrs DOUBLE
        route VARCHAR
        """,
        primary_key=("pharmacy_id", "drug_type", "drug"),
        description="prescribed medications",
    ),
    table(
        HOSP,
        "procedures_icd",
        """
        subject_id INTEGER NN
        hadm_id INTEGER NN
        seq_num INTEGER NN
        chartdate DATE NN
        icd_code VARCHAR
        icd_version SMALLINT
        """,
        primary_key=("hadm_id", "seq_num", "icd_code", "icd_version"),
        description="billed procedures per admission",
    ),
    table(
        HOSP,
        "provider",
        """
        provider_id VARCHAR NN
        """,
        primary_key=("provider_id",),
        description="de-identified provider ids",
    ),
    table(
        HOSP,
        "services",
        """
        subject_id INTEGER NN
        hadm_id INTEGER NN
        transfertime TIMESTAMP NN
        prev_service VARCHAR
        curr_service VARCHAR
        """,
        primary_key=("hadm_id", "transfertime", "curr_service"),
        description="hospital service changes",
    ),
    table(
        HOSP,
        "transfers",
        """
        subject_id INTEGER NN
        hadm_id INTEGER
        transfer_id INTEGER NN
        eventtype VARCHAR
        careunit VARCHAR
        intime TIMESTAMP
        outtime TIMESTAMP
        """,
        primary_key=("transfer_id",),
        description="ward and unit transfers",
    ),
)
