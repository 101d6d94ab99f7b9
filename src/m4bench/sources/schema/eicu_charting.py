"""eICU-CRD v2.0 tables intakeoutput … vitalperiodic (types as described in ``eicu``)."""

from __future__ import annotations

from m4bench.sources.schema.eicu_admission import EICU_SCHEMA
from m4bench.sources.schema.spec import table

CHARTING_TABLES = (
    table(
        EICU_SCHEMA,
        "intakeoutput",
        """
        intakeoutputid INTEGER NN
        patientunitstayid INTEGER NN
        intakeoutputoffset INTEGER NN
        intaketotal DOUBLE
        outputtotal DOUBLE
        dialysistotal DOUBLE
        nettotal DOUBLE
        intakeoutputentryoffset INTEGER NN
        cellpath VARCHAR
        celllabel VARCHAR
        cellvaluenumeric DOUBLE NN
        cellvaluetext VARCHAR NN
        """,
        primary_key=("intakeoutputid",),
        description="fluid intake and output",
    ),
    table(
        EICU_SCHEMA,
        "lab",
        """
        labid INTEGER NN
        patientunitstayid INTEGER NN
        labresultoffset INTEGER NN
        labtypeid DOUBLE NN
        labname VARCHAR
        labresult DOUBLE
        labresulttext VARCHAR
        labmeasurenamesystem VARCHAR
        labmeasurenameinterface VARCHAR
        labresultrevisedoffset INTEGER
        """,
        primary_key=("labid",),
        description="laboratory results",
    ),
    table(
        EICU_SCHEMA,
        "medication",
        """
        medicationid INTEGER NN
        patientunitstayid INTEGER NN
        drugorderoffset INTEGER NN
        drugstartoffset INTEGER NN
        drugivadmixture VARCHAR NN
        drugordercancelled VARCHAR NN
        drugname VARCHAR
        drughiclseqno INTEGER
        dosage VARCHAR
        routeadmin VARCHAR
        frequency VARCHAR
        loadingdose VARCHAR NN
        prn VARCHAR NN
        drugstopoffset INTEGER NN
        gtc INTEGER NN
        """,
        primary_key=("medicationid",),
        description="medication orders",
    ),
    table(
        EICU_SCHEMA,
        "microlab",
        """
        microlabid INTEGER NN
        patientunitstayid INTEGER NN
        culturetakenoffset INTEGER NN
        culturesite VARCHAR NN
        organism VARCHAR NN
        antibiotic VARCHAR
        sensitivitylevel VARCHAR
        """,
        primary_key=("microlabid",),
        description="microbiology cultures",
    ),
    table(
        EICU_SCHEMA,
        "note",
        """
        noteid INTEGER NN
        patientunitstayid INTEGER NN
        noteoffset INTEGER NN
        noteenteredoffset INTEGER NN
        notetype VARCHAR NN
        notepath VARCHAR NN
        notevalue VARCHAR
        notetext VARCHAR
        """,
        primary_key=("noteid",),
        description="structured note fields",
    ),
    table(
        EICU_SCHEMA,
        "nurseassessment",
        """
        nurseassessid INTEGER NN
        patientunitstayid INTEGER NN
        nurseassessoffset INTEGER NN
        nurseassessentryoffset INTEGER NN
        cellattributepath VARCHAR NN
        celllabel VARCHAR NN
        cellattribute VARCHAR NN
        cellattributevalue VARCHAR
        """,
        primary_key=("nurseassessid",),
        description="nursing assessments",
    ),
    table(
        EICU_SCHEMA,
        "nursecare",
        """
        nursecareid INTEGER NN
        patientunitstayid INTEGER NN
        celllabel VARCHAR NN
        nursecareoffset INTEGER NN
        nursecareentryoffset INTEGER NN
        cellattributepath VARCHAR NN
        cellattribute VARCHAR NN
        cellattributevalue VARCHAR
        """,
        primary_key=("nursecareid",),
        description="nursing care documentation",
    ),
    table(
        EICU_SCHEMA,
        "nursecharting",
        """
        nursingchartid BIGINT NN
        patientunitstayid INTEGER NN
        nursingchartoffset INTEGER NN
        nursingchartentryoffset INTEGER NN
        nursingchartcelltypecat VARCHAR NN
        nursingchartcelltypevallabel VARCHAR
        nursingchartcelltypevalname VARCHAR
        nursingchartvalue VARCHAR
        """,
        primary_key=("nursingchartid",),
        description="nurse-charted vitals and scores (values are text)",
    ),
    table(
        EICU_SCHEMA,
        "pasthistory",
        """
        pasthistoryid INTEGER NN
        patientunitstayid INTEGER NN
        pasthistoryoffset INTEGER NN
        pasthistoryenteredoffset INTEGER NN
        pasthistorynotetype VARCHAR
        pasthistorypath VARCHAR NN
        pasthistoryvalue VARCHAR
        pasthistoryvaluetext VARCHAR
        """,
        primary_key=("pasthistoryid",),
        description="past medical history",
    ),
    table(
        EICU_SCHEMA,
        "patient",
        """
        patientunitstayid INTEGER NN
        patienthealthsystemstayid INTEGER
        gender VARCHAR
        age VARCHAR
        ethnicity VARCHAR
        hospitalid INTEGER
        wardid INTEGER
        apacheadmissiondx VARCHAR
        admissionheight DOUBLE
        hospitaladmittime24 VARCHAR
        hospitaladmitoffset INTEGER
        hospitaladmitsource VARCHAR
        hospitaldischargeyear SMALLINT
        hospitaldischargetime24 VARCHAR
        hospitaldischargeoffset INTEGER
        hospitaldischargelocation VARCHAR
        hospitaldischargestatus VARCHAR
        unittype VARCHAR
        unitadmittime24 VARCHAR
        unitadmitsource VARCHAR
        unitvisitnumber INTEGER
        unitstaytype VARCHAR
        admissionweight DOUBLE
        dischargeweight DOUBLE
        unitdischargetime24 VARCHAR
        unitdischargeoffset INTEGER
        unitdischargelocation VARCHAR
        unitdischargestatus VARCHAR
        uniquepid VARCHAR
        """,
        primary_key=("patientunitstayid",),
        description="one row per ICU unit stay",
    ),
    table(
        EICU_SCHEMA,
        "physicalexam",
        """
        physicalexamid INTEGER NN
        patientunitstayid INTEGER NN
        physicalexamoffset INTEGER NN
        physicalexampath VARCHAR NN
        physicalexamvalue VARCHAR
        physicalexamtext VARCHAR
        """,
        primary_key=("physicalexamid",),
        description="structured physical exam (includes GCS)",
    ),
    table(
        EICU_SCHEMA,
        "respiratorycare",
        """
        respcareid INTEGER NN
        patientunitstayid INTEGER NN
        respcarestatusoffset INTEGER NN
        currenthistoryseqnum INTEGER
        airwaytype VARCHAR
        airwaysize VARCHAR
        airwayposition VARCHAR
        cuffpressure DOUBLE
        ventstartoffset INTEGER
        ventendoffset INTEGER
        priorventstartoffset INTEGER
        priorventendoffset INTEGER
        apneaparams VARCHAR
        lowexhmvlimit DOUBLE
        hiexhmvlimit DOUBLE
        lowexhtvlimit DOUBLE
        hipeakpreslimit DOUBLE
        lowpeakpreslimit DOUBLE
        hirespratelimit DOUBLE
        lowrespratelimit DOUBLE
        sighpreslimit DOUBLE
        lowironoxlimit DOUBLE
        highironoxlimit DOUBLE
        meanairwaypreslimit DOUBLE
        peeplimit DOUBLE
        cpaplimit DOUBLE
        setapneainterval VARCHAR
        setapneatv VARCHAR
        setapneaippeephigh VARCHAR
        setapnearr VARCHAR
        setapneapeakflow VARCHAR
        setapneainsptime VARCHAR
        setapneaie VARCHAR
        setapneafio2 VARCHAR
        """,
        primary_key=("respcareid",),
        description="airway and ventilator status",
    ),
    table(
        EICU_SCHEMA,
        "respiratorycharting",
        """
        respchartid INTEGER NN
        patientunitstayid INTEGER NN
        respchartoffset INTEGER NN
        respchartentryoffset INTEGER NN
        respcharttypecat VARCHAR NN
        respchartvaluelabel VARCHAR NN
        respchartvalue VARCHAR
        """,
        primary_key=("respchartid",),
        description="respiratory therapy charting",
    ),
    table(
        EICU_SCHEMA,
        "treatment",
        """
        treatmentid INTEGER NN
        patientunitstayid INTEGER NN
        treatmentoffset INTEGER NN
        treatmentstring VARCHAR NN
        activeupondischarge VARCHAR NN
        """,
        primary_key=("treatmentid",),
        description="treatments charted during the stay",
    ),
    table(
        EICU_SCHEMA,
        "vitalaperiodic",
        """
        vitalaperiodicid INTEGER NN
        patientunitstayid INTEGER NN
        observationoffset INTEGER NN
        noninvasivesystolic DOUBLE
        noninvasivediastolic DOUBLE
        noninvasivemean DOUBLE
        paop DOUBLE
        cardiacoutput DOUBLE
        cardiacinput DOUBLE
        svr DOUBLE
        svri DOUBLE
        pvr DOUBLE
        pvri DOUBLE
        """,
        primary_key=("vitalaperiodicid",),
        description="aperiodic vitals (non-invasive blood pressure)",
    ),
    table(
        EICU_SCHEMA,
        "vitalperiodic",
        """
        vitalperiodicid BIGINT NN
        patientunitstayid INTEGER NN
        observationoffset INTEGER NN
        temperature DOUBLE
        sao2 INTEGER
        heartrate INTEGER
        respiration INTEGER
        cvp INTEGER
        etco2 INTEGER
        systemicsystolic INTEGER
        systemicdiastolic INTEGER
        systemicmean INTEGER
        pasystolic INTEGER
        padiastolic INTEGER
        pamean INTEGER
        st1 DOUBLE
        st2 DOUBLE
        st3 DOUBLE
        icp INTEGER
        """,
        primary_key=("vitalperiodicid",),
        description="5-minute monitor medians",
    ),
)
