"""eICU-CRD v2.0 tables admissiondrug … infusiondrug (types as described in ``eicu``)."""

from __future__ import annotations

from m4bench.sources.schema.spec import table

EICU_SCHEMA = "eicu_crd"

ADMISSION_TABLES = (
    table(
        EICU_SCHEMA,
        "admissiondrug",
        """
        admissiondrugid INTEGER NN
        patientunitstayid INTEGER NN
        drugoffset INTEGER NN
        drugenteredoffset INTEGER NN
        drugnotetype VARCHAR
        specialtytype VARCHAR
        usertype VARCHAR NN
        rxincluded VARCHAR
        writtenineicu VARCHAR
        drugname VARCHAR NN
        drugdosage DOUBLE
        drugunit VARCHAR
        drugadmitfrequency VARCHAR NN
        drughiclseqno INTEGER
        """,
        primary_key=("admissiondrugid",),
        description="medications taken before admission",
    ),
    table(
        EICU_SCHEMA,
        "admissiondx",
        """
        admissiondxid INTEGER NN
        patientunitstayid INTEGER NN
        admitdxenteredoffset INTEGER NN
        admitdxpath VARCHAR NN
        admitdxname VARCHAR
        admitdxtext VARCHAR
        """,
        primary_key=("admissiondxid",),
        description="admission diagnoses (APACHE)",
    ),
    table(
        EICU_SCHEMA,
        "allergy",
        """
        allergyid INTEGER NN
        patientunitstayid INTEGER NN
        allergyoffset INTEGER NN
        allergyenteredoffset INTEGER NN
        allergynotetype VARCHAR
        specialtytype VARCHAR
        usertype VARCHAR NN
        rxincluded VARCHAR
        writtenineicu VARCHAR
        drugname VARCHAR
        allergytype VARCHAR
        allergyname VARCHAR
        drughiclseqno INTEGER
        """,
        primary_key=("allergyid",),
        description="allergies",
    ),
    table(
        EICU_SCHEMA,
        "apacheapsvar",
        """
        apacheapsvarid INTEGER NN
        patientunitstayid INTEGER NN
        intubated SMALLINT
        vent SMALLINT
        dialysis SMALLINT
        eyes SMALLINT
        motor SMALLINT
        verbal SMALLINT
        meds SMALLINT
        urine DOUBLE
        wbc DOUBLE
        temperature DOUBLE
        respiratoryrate DOUBLE
        sodium DOUBLE
        heartrate DOUBLE
        meanbp DOUBLE
        ph DOUBLE
        hematocrit DOUBLE
        creatinine DOUBLE
        albumin DOUBLE
        pao2 DOUBLE
        pco2 DOUBLE
        bun DOUBLE
        glucose DOUBLE
        bilirubin DOUBLE
        fio2 DOUBLE
        """,
        primary_key=("apacheapsvarid",),
        description="APACHE acute physiology variables (-1 = missing)",
    ),
    table(
        EICU_SCHEMA,
        "apachepatientresult",
        """
        apachepatientresultsid INTEGER NN
        patientunitstayid INTEGER NN
        physicianspeciality VARCHAR
        physicianinterventioncategory VARCHAR
        acutephysiologyscore INTEGER
        apachescore INTEGER
        apacheversion VARCHAR NN
        predictedicumortality VARCHAR
        actualicumortality VARCHAR
        predictediculos DOUBLE
        actualiculos DOUBLE
        predictedhospitalmortality VARCHAR
        actualhospitalmortality VARCHAR
        predictedhospitallos DOUBLE
        actualhospitallos DOUBLE
        preopmi INTEGER
        preopcardiaccath INTEGER
        ptcawithin24h INTEGER
        unabridgedunitlos DOUBLE
        unabridgedhosplos DOUBLE
        actualventdays DOUBLE
        predventdays DOUBLE
        unabridgedactualventdays DOUBLE
        """,
        primary_key=("apachepatientresultsid",),
        description="APACHE IV / IVa scores and predictions",
    ),
    table(
        EICU_SCHEMA,
        "apachepredvar",
        """
        apachepredvarid INTEGER NN
        patientunitstayid INTEGER NN
        sicuday SMALLINT
        saps3day1 SMALLINT
        saps3today SMALLINT
        saps3yesterday SMALLINT
        gender SMALLINT
        teachtype SMALLINT
        region SMALLINT
        bedcount SMALLINT
        admitsource SMALLINT
        graftcount SMALLINT
        meds SMALLINT
        verbal SMALLINT
        motor SMALLINT
        eyes SMALLINT
        age SMALLINT
        admitdiagnosis VARCHAR
        thrombolytics SMALLINT
        diedinhospital SMALLINT
        aids SMALLINT
        hepaticfailure SMALLINT
        lymphoma SMALLINT
        metastaticcancer SMALLINT
        leukemia SMALLINT
        immunosuppression SMALLINT
        cirrhosis SMALLINT
        electivesurgery SMALLINT
        activetx SMALLINT
        readmit SMALLINT
        ima SMALLINT
        midur SMALLINT
        ventday1 SMALLINT
        oobventday1 SMALLINT
        oobintubday1 SMALLINT
        diabetes SMALLINT
        managementsystem SMALLINT
        var03hspxlos DOUBLE
        pao2 DOUBLE
        fio2 DOUBLE
        ejectfx DOUBLE
        creatinine DOUBLE
        dischargelocation SMALLINT
        visitnumber SMALLINT
        amilocation SMALLINT
        day1meds SMALLINT
        day1verbal SMALLINT
        day1motor SMALLINT
        day1eyes SMALLINT
        day1pao2 DOUBLE
        day1fio2 DOUBLE
        """,
        primary_key=("apachepredvarid",),
        description="APACHE prediction variables (-1 = missing)",
    ),
    table(
        EICU_SCHEMA,
        "careplancareprovider",
        """
        cplcareprovderid INTEGER NN
        patientunitstayid INTEGER NN
        careprovidersaveoffset INTEGER NN
        providertype VARCHAR
        specialty VARCHAR
        interventioncategory VARCHAR
        managingphysician VARCHAR
        activeupondischarge VARCHAR NN
        """,
        primary_key=("cplcareprovderid",),
        description="care providers on the care plan",
    ),
    table(
        EICU_SCHEMA,
        "careplaneol",
        """
        cpleolid INTEGER NN
        patientunitstayid INTEGER NN
        cpleolsaveoffset INTEGER NN
        cpleoldiscussionoffset INTEGER
        activeupondischarge VARCHAR
        """,
        primary_key=("cpleolid",),
        description="end-of-life discussions",
    ),
    table(
        EICU_SCHEMA,
        "careplangeneral",
        """
        cplgeneralid INTEGER NN
        patientunitstayid INTEGER NN
        activeupondischarge VARCHAR NN
        cplitemoffset INTEGER NN
        cplgroup VARCHAR NN
        cplitemvalue VARCHAR
        """,
        primary_key=("cplgeneralid",),
        description="general care plan items",
    ),
    table(
        EICU_SCHEMA,
        "careplangoal",
        """
        cplgoalid INTEGER NN
        patientunitstayid INTEGER NN
        cplgoaloffset INTEGER NN
        cplgoalcategory VARCHAR
        cplgoalvalue VARCHAR
        cplgoalstatus VARCHAR
        activeupondischarge VARCHAR NN
        """,
        primary_key=("cplgoalid",),
        description="care plan goals",
    ),
    table(
        EICU_SCHEMA,
        "careplaninfectiousdisease",
        """
        cplinfectid INTEGER NN
        patientunitstayid INTEGER NN
        activeupondischarge VARCHAR NN
        cplinfectdiseaseoffset INTEGER NN
        infectdiseasesite VARCHAR
        infectdiseaseassessment VARCHAR
        responsetotherapy VARCHAR
        treatment VARCHAR
        """,
        primary_key=("cplinfectid",),
        description="infectious disease care plan",
    ),
    table(
        EICU_SCHEMA,
        "customlab",
        """
        customlabid INTEGER NN
        patientunitstayid INTEGER NN
        labotheroffset INTEGER NN
        labothertypeid INTEGER NN
        labothername VARCHAR
        labotherresult VARCHAR
        labothervaluetext VARCHAR
        """,
        primary_key=("customlabid",),
        description="site-specific laboratory results",
    ),
    table(
        EICU_SCHEMA,
        "diagnosis",
        """
        diagnosisid INTEGER NN
        patientunitstayid INTEGER NN
        activeupondischarge VARCHAR
        diagnosisoffset INTEGER NN
        diagnosisstring VARCHAR NN
        icd9code VARCHAR
        diagnosispriority VARCHAR NN
        """,
        primary_key=("diagnosisid",),
        description="diagnoses charted during the stay",
    ),
    table(
        EICU_SCHEMA,
        "hospital",
        """
        hospitalid INTEGER NN
        numbedscategory VARCHAR
        teachingstatus BOOLEAN
        region VARCHAR
        """,
        primary_key=("hospitalid",),
        description="one row per hospital",
    ),
    table(
        EICU_SCHEMA,
        "infusiondrug",
        """
        infusiondrugid INTEGER NN
        patientunitstayid INTEGER NN
        infusionoffset INTEGER NN
        drugname VARCHAR NN
        drugrate VARCHAR
        infusionrate VARCHAR
        drugamount VARCHAR
        volumeoffluid VARCHAR
        patientweight VARCHAR
        """,
        primary_key=("infusiondrugid",),
        description="continuous infusions (values are text)",
    ),
)
