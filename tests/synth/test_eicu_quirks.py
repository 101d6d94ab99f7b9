"""Each eICU quirk is present at its configured rate, and absent when its rate is 0."""

from __future__ import annotations

import math

import pytest

from m4bench.home import DataHome
from m4bench.sources.profile import SourceProfile, profile_source
from m4bench.sources.synth.eicu import synthesize_eicu
from m4bench.sources.synth.eicu_quirks import EicuQuirkRates

# Rates unlike the defaults, so the test shows the configuration is honoured.
CUSTOM = EicuQuirkRates(
    age_over_89=0.12,
    age_empty=0.05,
    pre_unit_charting=0.5,
    chart_junk=0.05,
    gcs_out_of_range=0.04,
    gcs_partial=0.25,
    gcs_score_family=0.55,
    gcs_uncharted=0.15,
    exam_gcs_out_of_range=0.1,
    chart_duplicate=0.06,
    temperature_f_label=0.45,
    temperature_unit_swap=0.03,
    vital_out_of_range=0.02,
    no_apache=0.3,
    apache_missing_value=0.4,
    apache_blood_gas_missing=0.5,
    apache_urine_missing=0.6,
    elective_surgery_null=0.2,
    io_no_urine=0.2,
    io_urine_variant=0.3,
    io_excluded_foley=0.06,
    io_same_offset=0.15,
    respcare_no_airway=0.5,
    lab_text_value=0.03,
)
ZERO = EicuQuirkRates(**dict.fromkeys(EicuQuirkRates.model_fields, 0.0))


@pytest.fixture(scope="module")
def custom(tmp_path_factory: pytest.TempPathFactory) -> SourceProfile:
    home = DataHome(tmp_path_factory.mktemp("eicu-custom"))
    source = synthesize_eicu(home, stays=500, seed=21, quirks=CUSTOM, progress=False)
    return profile_source(source)


@pytest.fixture(scope="module")
def zero(tmp_path_factory: pytest.TempPathFactory) -> SourceProfile:
    home = DataHome(tmp_path_factory.mktemp("eicu-zero"))
    source = synthesize_eicu(home, stays=250, seed=22, quirks=ZERO, progress=False)
    return profile_source(source)


@pytest.mark.parametrize("name", sorted(EicuQuirkRates.model_fields))
def test_quirk_rate_matches_configuration(custom: SourceProfile, name: str) -> None:
    stat = custom.quirk(name)
    wanted = getattr(CUSTOM, name)
    assert stat.configured == pytest.approx(wanted)
    assert stat.rate is not None and stat.denominator, name
    # binomial noise (five standard errors) plus a small allowance for rows the
    # generator adds beside the drawn ones (duplicates, covering rows)
    tolerance = 5 * math.sqrt(wanted * (1 - wanted) / stat.denominator) + 0.012
    assert abs(stat.rate - wanted) <= tolerance, (name, stat.rate, wanted, tolerance)


@pytest.mark.parametrize("name", sorted(EicuQuirkRates.model_fields))
def test_quirk_is_absent_at_rate_zero(zero: SourceProfile, name: str) -> None:
    stat = zero.quirk(name)
    assert stat.denominator, name
    assert stat.numerator == 0, (name, stat.numerator, stat.denominator)


def test_rates_outside_zero_one_are_rejected() -> None:
    with pytest.raises(ValueError, match="less than or equal to 1"):
        EicuQuirkRates(chart_junk=1.5)
    with pytest.raises(ValueError, match="greater than or equal to 0"):
        EicuQuirkRates(no_apache=-0.1)
    with pytest.raises(ValueError, match="Extra inputs"):
        EicuQuirkRates(no_such_quirk=0.1)  # type: ignore[call-arg]
