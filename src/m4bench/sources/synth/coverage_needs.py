"""Coverage needs: the rare clinical states every synthetic source must contain, as data.

``data/coverage_needs.toml`` lists *needs*. Each one describes a clinical state (a
heart rate below 40/min, polyuria, renal replacement therapy without a creatinine or
urine stage 3, an all-normal MELD, ...) in the generator's own terms, and names the
scoring bins (``family/bin`` of a family's ``coverage.toml``) and the known-wrong
mutants (``family/mutant``) it is there for. The generators read the file and engineer
one stay of every block of stays into each state (see ``coverage_plan``); a test holds
the file to the task catalog, so a bin without a need, or a need naming a bin that no
longer exists, fails it.

A value band ``[low, high]`` shapes every value of the signal charted in the need's
``hours`` (hours from ICU admission): the lowest becomes ``low`` and the highest
``high``, the others in between in the same order (a single value takes the middle).
So a band inside one scoring bin puts the stay's minimum and maximum in that bin, and
a band across two bins puts the minimum in one and the maximum in the other.
"""

from __future__ import annotations

import re
import tomllib
from functools import lru_cache
from importlib import resources
from typing import Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from m4bench.errors import M4BenchError
from m4bench.sources.datasets import Dataset

NEEDS_FILE = "coverage_needs.toml"

# signals a band can shape, per dataset, with what each one is
MIMIC_SIGNALS = {
    "heart_rate": "heart rate (/min)",
    "resp_rate": "respiratory rate (/min)",
    "mbp": "mean arterial pressure, non-invasive and arterial (mmHg)",
    "sbp": "systolic pressure, non-invasive and arterial (mmHg)",
    "temperature": "temperature (°C, charted in either unit)",
    "glucose": "glucose, charted and in every lab panel (mg/dL)",
    "sodium": "sodium, chemistry and blood gas (mmol/L)",
    "potassium": "potassium, chemistry and blood gas (mmol/L)",
    "bicarbonate": "bicarbonate, chemistry (mmol/L)",
    "hematocrit": "haematocrit, blood count and blood gas (%)",
    "wbc": "white cells (10^9/L)",
    "platelets": "platelets (10^9/L)",
    "creatinine": "creatinine (mg/dL)",
    "bun": "urea nitrogen (mg/dL)",
    "albumin": "albumin (g/dL)",
    "bilirubin": "total bilirubin (mg/dL)",
    "inr": "INR",
    "bands": "band forms (%)",
    "ph": "blood gas pH",
    "pco2": "blood gas pCO2 (mmHg)",
    "po2": "blood gas pO2 (mmHg); the stay's gases are arterial",
    "fio2": "FiO2, charted and in blood gases (%)",
    "aado2": "A-a gradient of the blood gas (mmHg)",
    "urine_rate": "each hourly Foley output (mL/kg/h)",
    "urine_24h": "urine output of the first 24 hours (mL); only Foley output is charted",
}
EICU_SIGNALS = {
    "heart_rate": "heart rate (/min)",
    "resp_rate": "respiratory rate (/min)",
    "mbp": "mean arterial pressure, non-invasive and invasive (mmHg)",
    "temperature": "temperature (°C)",
    "urine_24h": "urine output of the first 24 hours (mL)",
}
SIGNALS: dict[str, dict[str, str]] = {"mimic-iv": MIMIC_SIGNALS, "eicu": EICU_SIGNALS}
MIMIC_AGENTS = ("norepinephrine", "epinephrine", "phenylephrine", "vasopressin", "dopamine",
                "dobutamine", "milrinone")  # fmt: skip
_BIN = r"^[a-z0-9-]+/[a-z0-9]+([-_.][a-z0-9]+)*$"


class Need(BaseModel):
    """One ``[[need]]``: a clinical state, the bins and mutants it serves, how to make it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$")
    dataset: Dataset
    state: str = Field(min_length=10, description="the clinical state, in words")
    bins: tuple[str, ...] = Field(min_length=1)
    mutants: tuple[str, ...] = ()
    severity: tuple[float, float] = (0.0, 1.0)
    hours: tuple[float, float] = (-6.0, 24.0)
    values: dict[str, tuple[float, float]] = Field(default_factory=dict)
    ventilated: bool | None = None
    niv: bool = False
    rrt: bool | None = None
    vasoactive: tuple[str, ...] | None = None
    gcs: tuple[int, int, int] | None = None
    gcs_charting: Literal["usual", "none", "before-icu"] = "usual"
    room_air_flow: bool = False
    age: int | None = Field(default=None, ge=18, le=89)
    conditions: tuple[str, ...] = ()
    pre_icu_days: float | None = Field(default=None, gt=0, le=30)

    @field_validator("bins", "mutants")
    @classmethod
    def _family_names(cls, names: tuple[str, ...]) -> tuple[str, ...]:
        for name in names:
            if not re.match(_BIN, name):
                raise ValueError(f"{name!r} is not 'family/name'")
        return names

    @model_validator(mode="after")
    def _consistent(self) -> Need:
        known = SIGNALS[self.dataset]
        for signal, (low, high) in self.values.items():
            if signal not in known:
                raise ValueError(f"need {self.name!r}: no signal {signal!r} in {self.dataset}")
            if low > high:
                raise ValueError(f"need {self.name!r}: {signal} band [{low}, {high}] is reversed")
        for low, high, what in (*self.severity, "severity"), (*self.hours, "hours"):
            if low > high:
                raise ValueError(f"need {self.name!r}: {what} [{low}, {high}] is reversed")
        for agent in self.vasoactive or ():
            if agent not in MIMIC_AGENTS:
                raise ValueError(f"need {self.name!r}: unknown vasoactive agent {agent!r}")
        if self.gcs is not None and not (1 <= self.gcs[0] <= 4 and 1 <= self.gcs[1] <= 5
                                         and 1 <= self.gcs[2] <= 6):  # fmt: skip
            raise ValueError(f"need {self.name!r}: gcs is [eyes 1-4, verbal 1-5, motor 1-6]")
        if self.dataset == "eicu" and self._mimic_only():
            raise ValueError(f"need {self.name!r}: an eICU need has value bands and age only")
        return self

    def _mimic_only(self) -> bool:
        return any(
            (
                self.rrt is not None,
                self.niv,
                self.vasoactive is not None,
                self.gcs is not None,
                self.gcs_charting != "usual",
                self.room_air_flow,
                bool(self.conditions),
                self.pre_icu_days is not None,
            )
        )

    @property
    def span_hours(self) -> float:
        """How long the host stay must last: the window and six hours more."""
        return max(self.hours[1], 24.0) + 6.0


class NeedsFile(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    format_version: Literal[1] = 1
    need: list[Need] = Field(default_factory=list)


def read_needs(text: str) -> list[Need]:
    """Parse and validate the text of a needs file (names must be unique)."""
    hint = "see docs/synthetic.md, 'Coverage by construction'"
    try:
        parsed = NeedsFile.model_validate(tomllib.loads(text))
    except tomllib.TOMLDecodeError as exc:
        raise M4BenchError(f"{NEEDS_FILE}: {exc}", hint=hint) from exc
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise M4BenchError(f"{NEEDS_FILE}: [{where}] {first['msg']}", hint=hint) from exc
    seen: set[str] = set()
    for need in parsed.need:
        if need.name in seen:
            raise M4BenchError(f"{NEEDS_FILE}: need {need.name!r} appears twice")
        seen.add(need.name)
    return list(parsed.need)


@lru_cache(maxsize=1)
def all_needs() -> tuple[Need, ...]:
    """Every need of the shipped file, in file order."""
    text = resources.files(__package__).joinpath("data", NEEDS_FILE).read_text("utf-8")
    return tuple(read_needs(text))


def dataset_needs(dataset: Dataset) -> tuple[Need, ...]:
    """The needs of one dataset, in file order (the order they are placed in)."""
    return tuple(n for n in all_needs() if n.dataset == dataset)
