"""``m4bench campaign run --resume``: the options a campaign recorded, taken again.

A campaign records in its ``campaign.json`` what its runs execute with (sources,
sandbox, endpoint without credentials, replay path, the simulation) and how its plan
was made (profile, ``--agent``, ``--model``, ``--trials``). On ``--resume`` an option
left out takes its recorded value; one given is used as given, and the campaign's
checks accept it as a correction while no run is complete, or refuse it naming the
option and the recorded value (:meth:`m4bench.campaign.ResultsDir.check_campaign`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

from m4bench.campaign import ResultsDir, RunSettings
from m4bench.errors import M4BenchError


@dataclass(frozen=True)
class CampaignOptions:
    """The options of ``campaign run`` a campaign records (None or empty: not given)."""

    profile: str | None = None
    sources: tuple[str, ...] = ()
    """``--source DATASET=NAME`` items."""
    recorded_sources: tuple[tuple[str, str], ...] = ()
    """The sources recorded (under the items given): not named, so not checked unless
    the campaign's tasks read them."""
    sandbox: str | None = None
    endpoint: str | None = None
    replay: Path | None = None
    simulate: str | None = None
    agents: tuple[str, ...] = ()
    models: tuple[str, ...] = ()
    trials: int | None = None


def with_recorded(given: CampaignOptions, results: Path) -> CampaignOptions:
    """``given`` with each option left out taken from the campaign in ``results``."""
    manifest = ResultsDir(results).read_manifest()
    if manifest is None:
        raise M4BenchError(
            f"{results}: no campaign to resume (no campaign.json)",
            hint="check --results, or start the campaign without --resume",
        )
    recorded = manifest.settings
    if recorded is None:  # recorded before campaigns kept their options
        return given
    plan = recorded.plan
    taken = dataclasses.replace(
        given,
        profile=given.profile or (plan.profile if plan else None),
        agents=given.agents or tuple(plan.agents if plan else ()),
        models=given.models or tuple(plan.models if plan else ()),
        trials=given.trials or (plan.trials if plan else None),
    )
    if recorded.simulated:
        real = (given.sources, given.sandbox, given.endpoint, given.replay)
        if given.simulate is None and any(real):
            return taken  # options of real runs: the check names --simulate
        return dataclasses.replace(taken, simulate=given.simulate or recorded.simulation)
    if given.simulate is not None:
        return taken  # the check names --simulate against the recorded real runs
    return _run_options(taken, recorded)


def _run_options(given: CampaignOptions, recorded: RunSettings) -> CampaignOptions:
    return dataclasses.replace(
        given,
        recorded_sources=tuple(sorted(recorded.sources.items())),
        sandbox=given.sandbox or recorded.sandbox,
        endpoint=given.endpoint or recorded.endpoint,
        replay=given.replay or (None if recorded.replay is None else Path(recorded.replay)),
    )


def profile_of(options: CampaignOptions, results: Path) -> str:
    """The profile to run: the one given, else the one the campaign recorded."""
    if options.profile is None:
        raise M4BenchError(
            f"{results}: which profile? The campaign recorded here does not name one",
            hint="give the profile (a shipped name or a .toml path) before --results",
        )
    return options.profile
