"""How often each eICU-CRD quirk is injected into the synthetic source.

Every rate is a fraction in [0, 1] of the population named in its description, and
``m4bench data profile`` measures the same population with a SQL detector, so a
configured rate can be checked against the data.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class EicuQuirkRates(BaseModel):
    """Rates of the deliberate real-data quirks of the synthetic eICU source."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    age_over_89: float = Field(0.04, ge=0, le=1, description="patient rows with age '> 89'")
    age_empty: float = Field(0.005, ge=0, le=1, description="patient rows with age ''")
    pre_unit_charting: float = Field(
        0.3, ge=0, le=1, description="stays whose nursecharting starts before unit admission"
    )
    chart_junk: float = Field(
        0.02,
        ge=0,
        le=1,
        description="GCS and vital nursecharting rows with a non-numeric value ('-', '.', ...)",
    )
    gcs_out_of_range: float = Field(
        0.01, ge=0, le=1, description="numeric GCS total rows outside 3-15"
    )
    gcs_partial: float = Field(
        0.1,
        ge=0,
        le=1,
        description="'Glasgow coma score' charting times missing some of total/motor/verbal/eyes",
    )
    gcs_score_family: float = Field(
        0.3,
        ge=0,
        le=1,
        description="stays with GCS charting that use the 'Score (Glasgow Coma Scale)' label",
    )
    gcs_uncharted: float = Field(
        0.06, ge=0, le=1, description="stays without any nursecharting GCS row"
    )
    exam_gcs_out_of_range: float = Field(
        0.02, ge=0, le=1, description="physical-exam GCS totals outside 3-15 (typos)"
    )
    chart_duplicate: float = Field(
        0.03,
        ge=0,
        le=1,
        description="GCS and vital nursecharting rows charted twice at one offset",
    )
    temperature_f_label: float = Field(
        0.25,
        ge=0,
        le=1,
        description="stays with temperature charting that also chart 'Temperature (F)'",
    )
    temperature_unit_swap: float = Field(
        0.01, ge=0, le=1, description="'Temperature (C)' rows holding a Fahrenheit number"
    )
    vital_out_of_range: float = Field(
        0.005, ge=0, le=1, description="HR/RR/MAP rows with an impossible value (0, 300, ...)"
    )
    no_apache: float = Field(0.15, ge=0, le=1, description="stays without APACHE rows")
    apache_missing_value: float = Field(
        0.2, ge=0, le=1, description="apacheapsvar vital/lab values set to -1 (missing)"
    )
    apache_blood_gas_missing: float = Field(
        0.77, ge=0, le=1, description="apacheapsvar ph/pao2/pco2/fio2 set to -1 (missing)"
    )
    apache_urine_missing: float = Field(
        0.35, ge=0, le=1, description="apacheapsvar rows with urine = -1"
    )
    elective_surgery_null: float = Field(
        0.45, ge=0, le=1, description="apachepredvar rows with electivesurgery NULL"
    )
    io_no_urine: float = Field(
        0.1, ge=0, le=1, description="stays without any intakeoutput output row"
    )
    io_urine_variant: float = Field(
        0.5,
        ge=0,
        le=1,
        description="urine intakeoutput rows whose cell path tail is not plain 'Urine'",
    )
    io_excluded_foley: float = Field(
        0.03,
        ge=0,
        le=1,
        description="foley output rows the urine rule excludes (PACU/OR/IR in the path)",
    )
    io_same_offset: float = Field(
        0.08,
        ge=0,
        le=1,
        description="urine rows re-entered at the same offset (same cumulative totals)",
    )
    respcare_no_airway: float = Field(
        0.25,
        ge=0,
        le=1,
        description="stays never ventilated that still have respiratorycare rows (airway NULL)",
    )
    lab_text_value: float = Field(
        0.01, ge=0, le=1, description="lab rows with a text result and labresult NULL"
    )
