"""eICU-CRD v2.0: every table, in schema ``eicu_crd``.

Column names and order are the official ones. Types follow the official DDL except:
``NUMERIC(p,s)`` and ``REAL`` are ``DOUBLE``, the ``*time24`` clock columns stay
``VARCHAR`` ('12:45:00'), and ``patient.age`` is ``VARCHAR`` (it holds '> 89').
All times are integer minute offsets from unit admission.
"""

from __future__ import annotations

from m4bench.sources.schema.base import DatasetSchema
from m4bench.sources.schema.spec import table

EICU_SCHEMA = "eicu_crd"


_TABLES = (
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

EICU = DatasetSchema(dataset="eicu", version="2.0", tables=_TABLES)
