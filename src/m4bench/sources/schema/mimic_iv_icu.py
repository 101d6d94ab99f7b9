"""MIMIC-IV v3.1 ``mimiciv_icu`` tables (types as described in ``mimic_iv``)."""

from __future__ import annotations

from m4bench.sources.schema.spec import table

ICU = "mimiciv_icu"

ICU_TABLES = (
    table(
        ICU,
        "caregiver",
        """
        caregiver_id INTEGER NN
        """,
        primary_key=("caregiver_id",),
        description="de-identified caregiver ids",
    ),
    table(
        ICU,
        "chartevents",
        """
        subject_id INTEGER NN
        hadm_id INTEGER NN
        stay_id INTEGER NN
        caregiver_id INTEGER
        charttime TIMESTAMP NN
        storetime TIMESTAMP
        itemid INTEGER NN
        value VARCHAR
        valuenum DOUBLE
        valueuom VARCHAR
        warning SMALLINT
        """,
        description="charted observations",
    ),
    table(
        ICU,
        "d_items",
        """
        itemid INTEGER NN
        label VARCHAR NN
        abbreviation VARCHAR NN
        linksto VARCHAR NN
        category VARCHAR NN
        unitname VARCHAR
        param_type VARCHAR NN
        lownormalvalue DOUBLE
        highnormalvalue DOUBLE
        """,
        primary_key=("itemid",),
        description="ICU item dictionary",
    ),
    table(
        ICU,
        "datetimeevents",
        """
        subject_id INTEGER NN
        hadm_id INTEGER NN
        stay_id INTEGER NN
        caregiver_id INTEGER
        charttime TIMESTAMP NN
        storetime TIMESTAMP
        itemid INTEGER NN
        value TIMESTAMP NN
        valueuom VARCHAR
        warning SMALLINT
        """,
        description="charted dates and times",
    ),
    table(
        ICU,
        "icustays",
        """
        subject_id INTEGER NN
        hadm_id INTEGER NN
        stay_id INTEGER NN
        first_careunit VARCHAR
        last_careunit VARCHAR
        intime TIMESTAMP
        outtime TIMESTAMP
        los DOUBLE
        """,
        primary_key=("stay_id",),
        description="one row per ICU stay",
    ),
    table(
        ICU,
        "ingredientevents",
        """
        subject_id INTEGER NN
        hadm_id INTEGER NN
        stay_id INTEGER
        caregiver_id INTEGER
        starttime TIMESTAMP NN
        endtime TIMESTAMP NN
        storetime TIMESTAMP
        itemid INTEGER NN
        amount DOUBLE
        amountuom VARCHAR
        rate DOUBLE
        rateuom VARCHAR
        orderid INTEGER NN
        linkorderid INTEGER
        statusdescription VARCHAR
        originalamount DOUBLE
        originalrate DOUBLE
        """,
        description="ingredients of administered inputs",
    ),
    table(
        ICU,
        "inputevents",
        """
        subject_id INTEGER NN
        hadm_id INTEGER NN
        stay_id INTEGER
        caregiver_id INTEGER
        starttime TIMESTAMP NN
        endtime TIMESTAMP NN
        storetime TIMESTAMP
        itemid INTEGER NN
        amount DOUBLE
        amountuom VARCHAR
        rate DOUBLE
        rateuom VARCHAR
        orderid INTEGER NN
        linkorderid INTEGER
        ordercategoryname VARCHAR
        secondaryordercategoryname VARCHAR
        ordercomponenttypedescription VARCHAR
        ordercategorydescription VARCHAR
        patientweight DOUBLE
        totalamount DOUBLE
        totalamountuom VARCHAR
        isopenbag SMALLINT
        continueinnextdept SMALLINT
        statusdescription VARCHAR
        originalamount DOUBLE
        originalrate DOUBLE
        """,
        description="infusions and boluses",
    ),
    table(
        ICU,
        "outputevents",
        """
        subject_id INTEGER NN
        hadm_id INTEGER NN
        stay_id INTEGER NN
        caregiver_id INTEGER
        charttime TIMESTAMP NN
        storetime TIMESTAMP NN
        itemid INTEGER NN
        value DOUBLE NN
        valueuom VARCHAR
        """,
        description="patient outputs (urine, drains)",
    ),
    table(
        ICU,
        "procedureevents",
        """
        subject_id INTEGER NN
        hadm_id INTEGER NN
        stay_id INTEGER NN
        caregiver_id INTEGER
        starttime TIMESTAMP NN
        endtime TIMESTAMP NN
        storetime TIMESTAMP NN
        itemid INTEGER NN
        value DOUBLE
        valueuom VARCHAR
        location VARCHAR
        locationcategory VARCHAR
        orderid INTEGER
        linkorderid INTEGER
        ordercategoryname VARCHAR
        ordercategorydescription VARCHAR
        patientweight DOUBLE
        isopenbag SMALLINT
        continueinnextdept SMALLINT
        statusdescription VARCHAR
        originalamount DOUBLE
        originalrate DOUBLE
        """,
        description="procedures (lines, ventilation, dialysis)",
    ),
)
