"""A campaign's own files beside its runs' records: the planned set and each attempt.

``campaign.json`` (:class:`CampaignManifest`) says which runs the folder must reach and
what they are executed with; ``runs/<run_id>/attempts/<n>.json`` (:class:`AttemptRecord`)
is the campaign's bookkeeping of each start of a run. A run's result is its
:class:`~m4bench.results.record.ResultRecord`, never nested in these.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from m4bench.results.identity import Cell, public_endpoint, run_id

MANIFEST_FORMAT_VERSION: Literal[1] = 1
ATTEMPT_FORMAT_VERSION: Literal[1] = 1
AttemptState = Literal["started", "finished", "infrastructure-error"]


class PlannedRun(BaseModel):
    """One run of a campaign: a cell, a trial, and how the run is to be executed."""

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    cell: Cell
    trial: int = Field(ge=1)
    timeout_seconds: float = Field(gt=0)
    provider: str
    prior_seconds: float = Field(gt=0, description="expected duration, for scheduling")

    @property
    def run_id(self) -> str:
        return run_id(self.cell, self.trial)


class PlanSettings(BaseModel):
    """How a campaign's planned set was made: the profile and the planning options, so
    ``--resume`` plans the same runs without the options given again."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    profile: str | None = Field(
        None, description="a shipped profile's name, or the profile file's absolute path"
    )
    agents: list[str] = Field(default_factory=list, description="--agent options")
    models: list[str] = Field(default_factory=list, description="--model options")
    trials: int | None = Field(None, ge=1, description="--trials")


class RunSettings(BaseModel):
    """The options a campaign's runs were executed with that change their results,
    and how its plan was made.

    Recorded in ``campaign.json`` when a campaign starts; ``--resume`` takes them as
    recorded, and with different ones is refused once a run is complete, so one
    campaign never mixes data sources, sandboxes, model endpoints, replayed files, or
    simulated and real runs. The endpoint is recorded without credentials
    (:func:`~m4bench.results.identity.public_endpoint`).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    simulated: bool = Field(description="runs are simulated (--simulate): no agent ran")
    sources: dict[str, str] = Field(
        default_factory=dict, description="data source per dataset (none when simulated)"
    )
    sandbox: str | None = Field(None, description="sandbox backend (none when simulated)")
    endpoint: str | None = Field(None, description="model endpoint of the react agent")
    replay: str | None = Field(
        None, description="absolute path of the replay file or folder (--replay)"
    )
    simulation: str | None = Field(None, description="the --simulate spec of simulated runs")
    plan: PlanSettings | None = Field(None, description="how the planned set was made")

    def differences(self, given: RunSettings) -> list[tuple[str, str, str]]:
        """``(option, recorded, given)`` for every option that differs, in a fixed order
        (the plan's options and the simulation's spec are not results settings)."""
        if self.simulated != given.simulated:  # the other options follow from this one
            return [("--simulate", _simulation(self), _simulation(given))]
        found: list[tuple[str, str, str]] = []
        for dataset in sorted({*self.sources, *given.sources}):
            recorded, now = self.sources.get(dataset), given.sources.get(dataset)
            if recorded != now:
                found.append((f"--source {dataset}", _shown(recorded), _shown(now)))
        if self.sandbox != given.sandbox:
            found.append(("--sandbox", _shown(self.sandbox), _shown(given.sandbox)))
        if _public(self.endpoint) != _public(given.endpoint):
            found.append(
                ("--endpoint", _shown(_public(self.endpoint)), _shown(_public(given.endpoint)))
            )
        if self.replay != given.replay:
            found.append(("--replay", _shown(self.replay), _shown(given.replay)))
        return found

    def as_options(self) -> str:
        """The ``campaign run`` options that give these settings."""
        if self.simulated:
            return f"--simulate {self.simulation or 'SPEC'}"
        parts = [f"--source {dataset}={name}" for dataset, name in sorted(self.sources.items())]
        if self.sandbox is not None:
            parts.append(f"--sandbox {self.sandbox}")
        if self.endpoint is not None:
            parts.append(f"--endpoint {_public(self.endpoint)}")
        if self.replay is not None:
            parts.append(f"--replay {self.replay}")
        return " ".join(parts) or "no options"


def _public(endpoint: str | None) -> str | None:
    """An endpoint as recorded now; campaigns recorded before kept it as given."""
    if endpoint is None:
        return None
    try:
        return public_endpoint(endpoint)
    except ValueError:
        return endpoint


def _simulation(settings: RunSettings) -> str:
    return "simulated runs" if settings.simulated else "real runs"


def _shown(value: str | None) -> str:
    return "(none)" if value is None else repr(value)


class CampaignManifest(BaseModel):
    """``<results>/campaign.json``: the planned set a results folder must reach."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    format_version: Literal[1] = MANIFEST_FORMAT_VERSION
    profile: str
    plan_sha256: str
    settings: RunSettings | None = Field(
        None,
        description="what the runs are executed with; None in campaigns recorded before "
        "it was (their resume checks the planned set only)",
    )
    runs: list[PlannedRun]


class AttemptRecord(BaseModel):
    """``<results>/runs/<run_id>/attempts/<n>.json``: one start of a run.

    Written ``started`` before the run is executed and rewritten when it ends:
    ``finished`` when its result record was written, ``infrastructure-error`` (with the
    error) when the run could not happen. A ``started`` record left behind marks an
    attempt cut short by a crash.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    format_version: Literal[1] = ATTEMPT_FORMAT_VERSION
    run_id: str
    attempt: int = Field(ge=1)
    state: AttemptState
    error: str | None = None
