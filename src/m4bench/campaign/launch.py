"""Assembling a campaign: from a profile and how to run it, to its executed runs.

The command line (``m4bench campaign run``) and the demo call the same three steps::

    request = CampaignRequest(profile, where, results, plan=..., runs=RunSetup(...))
    prepared = prepare_campaign(request)     # plans and checks; writes nothing
    report = execute_campaign(prepared, progress)

The runs' identity covers the file each ``replay`` run replays (the ``replay`` path of
:class:`RunSetup`, else the profile's) and the endpoint of the agents that reach it
(:mod:`m4bench.campaign.replay`). What the runs execute with, and how the plan was made,
is recorded in ``campaign.json`` (``RunSettings``) for ``--resume`` to take again.

:func:`prepare_campaign` checks everything that can be known wrong before a run starts
(the results folder, each cell, the sources and the agents' inputs), so a mistake never
ends up recorded in the campaign. Every run is executed by one run function: the
runner's (:class:`~m4bench.campaign.runner_bridge.RunnerRunFn`), or a simulation.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from m4bench.campaign.checks import CampaignInputs, check_cells, check_inputs, check_sandbox
from m4bench.campaign.driver import CampaignReport, DriverSettings, run_campaign
from m4bench.campaign.executors import Executor, LocalExecutor
from m4bench.campaign.plan import PlanOptions, check_named_tasks, plan_campaign
from m4bench.campaign.profile import PROFILES_DIR, Profile, resolve_profile_path
from m4bench.campaign.progress import ProgressSink
from m4bench.campaign.replay import identify_runs
from m4bench.campaign.retry import RetryPolicy, RunFn
from m4bench.campaign.runner_bridge import RunnerRunFn
from m4bench.campaign.selection import facts_of
from m4bench.campaign.simulate import SimulatedRun
from m4bench.campaign.store import ResultsDir
from m4bench.errors import M4BenchError
from m4bench.home import DataHome
from m4bench.results.campaign_files import PlannedRun, PlanSettings, RunSettings
from m4bench.results.identity import public_endpoint
from m4bench.sandbox import default_sandbox_name
from m4bench.sources.defaults import DEFAULT_SOURCES
from m4bench.tasks.catalog import Catalog, load_catalog

EXECUTORS = ("local", "ray")
_SIMULATED_DELAYS = {"base_delay_seconds": 0.01, "max_delay_seconds": 0.1}


@dataclass(frozen=True)
class RunSetup:
    """What every run of a campaign is executed with; what changes results is recorded
    in ``campaign.json`` and checked on resume (:meth:`settings`)."""

    home: Path | None = None
    """The data home (None: ``$M4BENCH_HOME``, else the default)."""
    sources: Mapping[str, str] = field(default_factory=lambda: dict(DEFAULT_SOURCES))
    """The source of each dataset."""
    named_sources: frozenset[str] = frozenset()
    """The datasets whose source was named (checked even without tasks reading it)."""
    sandbox: str = field(default_factory=default_sandbox_name)
    endpoint: str | None = None
    simulation: SimulatedRun | None = None
    """Simulated runs in place of agents (``--simulate``)."""
    simulation_spec: str | None = None
    """The ``--simulate`` text ``simulation`` was parsed from (recorded for --resume)."""
    replay: Path | None = None
    """The file, or folder of ``<task>.sql|.py|.sh`` files, ``replay`` runs replay; None:
    the profile's ``replay``, if any."""

    def data_home(self) -> DataHome:
        return DataHome.from_env(self.home)

    def settings(self) -> RunSettings:
        if self.simulation is not None:
            return RunSettings(simulated=True, simulation=self.simulation_spec)
        return RunSettings(
            simulated=False,
            sources=dict(self.sources),
            sandbox=self.sandbox,
            endpoint=None if self.endpoint is None else public_endpoint(self.endpoint),
            replay=None if self.replay is None else str(self.replay.expanduser().resolve()),
        )

    def run_function(self, results: Path) -> RunFn:
        """The one run function of the campaign whose folder is ``results``."""
        if self.simulation is not None:
            return self.simulation
        return RunnerRunFn(
            home=self.data_home().root,
            results=results.expanduser().resolve(),
            sources=dict(self.sources),
            sandbox=self.sandbox,
            endpoint=self.endpoint,
            replay=None if self.replay is None else self.replay.expanduser().resolve(),
        )

    def inputs(self, local: bool) -> CampaignInputs:
        return CampaignInputs(
            home=self.data_home(),
            sources=self.sources,
            named=self.named_sources,
            sandbox=self.sandbox,
            endpoint=self.endpoint,
            replay=self.replay,
            local=local,
        )


@dataclass(frozen=True)
class ExecutorChoice:
    """Where runs execute: ``local`` (a pool of ``jobs`` threads) or ``ray``."""

    name: str = "local"
    jobs: int | None = None
    """Runs at once (None: the profile's ``concurrency.jobs``, or Ray's CPUs)."""
    ray_address: str | None = None


@dataclass(frozen=True)
class CampaignRequest:
    """A campaign to run: the profile, where it is recorded, and how its runs execute."""

    profile: Profile
    where: str
    """What names the profile in messages (its file)."""
    results: Path
    plan: PlanOptions = field(default_factory=PlanOptions)
    runs: RunSetup = field(default_factory=RunSetup)
    executor: ExecutorChoice = field(default_factory=ExecutorChoice)
    resume: bool = False
    budget: Mapping[str, float | int] = field(default_factory=dict)
    """Limits over the profile's ``[budget]`` (see :func:`budget_overrides`)."""
    check: bool = True
    """Check each cell and the runs' inputs before anything is written."""
    profile_name: str | None = None
    """The profile as the user named it (a shipped name or a file), recorded so that
    ``--resume`` finds it again; None: ``where``, when that is a file."""

    def plan_settings(self) -> PlanSettings:
        """How the plan was made, as ``campaign.json`` records it."""
        return PlanSettings(
            profile=_profile_reference(self.profile_name or self.where),
            agents=list(self.plan.agents),
            models=list(self.plan.models),
            trials=self.plan.trials,
        )


def _profile_reference(named: str) -> str | None:
    """A shipped profile's name, a profile file's absolute path; None when ``named``
    is neither (a profile built in code)."""
    try:
        path = resolve_profile_path(named)
    except M4BenchError:
        return None
    if path.resolve().parent == PROFILES_DIR.resolve():
        return path.stem
    return str(path.resolve())


@dataclass(frozen=True)
class PreparedCampaign:
    """A checked request: its planned runs and the driver's settings."""

    request: CampaignRequest
    runs: list[PlannedRun]
    driver: DriverSettings

    @property
    def results(self) -> ResultsDir:
        return ResultsDir(self.request.results)


def plan_profile(
    profile: Profile,
    options: PlanOptions,
    where: str,
    check: bool,
    replay: Path | None = None,
    endpoint: str | None = None,
) -> tuple[list[PlannedRun], Catalog | None]:
    """The planned runs, identified by their inputs (the file each replay run replays:
    ``replay``, else the profile's; the endpoint, for the agents that reach it). With
    ``check``, each task the profile names must be in the catalog, and each cell must be
    one a run can have (its task has what the condition and schema need; its timeout
    is in range).

    The catalog is loaded when selectors or the checks need it; only a profile with
    selectors fails without one.
    """
    selects = any(block.tasks is None for block in profile.blocks)
    catalog: Catalog | None = None
    if selects or check:
        try:
            catalog = load_catalog()
        except M4BenchError:
            if selects:
                raise
    facts = None if catalog is None else facts_of(catalog)
    if check and facts is not None:
        check_named_tasks(profile, facts, where)
    planned = plan_campaign(profile, options, facts)
    replay = replay or (None if profile.replay is None else Path(profile.replay))
    planned = identify_runs(planned, replay, endpoint)
    if check and catalog is not None:
        check_cells(planned, catalog, where)
    return planned, catalog


def prepare_campaign(request: CampaignRequest) -> PreparedCampaign:
    """The planned runs and the driver's settings, once everything that can be known
    before a run starts is checked: the sandbox, the results folder (another campaign,
    or other settings), each cell, the sources and the agents' inputs. Writes nothing."""
    request = _with_profile_replay(request)
    runs = request.runs
    check_sandbox(runs.sandbox)
    if request.executor.name not in EXECUTORS:
        raise M4BenchError(
            f"--executor {request.executor.name!r}: no such executor",
            hint=f"choose one of: {', '.join(EXECUTORS)}",
        )
    real = request.check and runs.simulation is None
    planned, catalog = plan_profile(
        request.profile, request.plan, request.where, real, runs.replay, runs.endpoint
    )
    recorded = runs.settings().model_copy(update={"plan": request.plan_settings()})
    ResultsDir(request.results).check_campaign(planned, request.resume, recorded)
    if real:
        local = request.executor.name == "local"
        check_inputs(planned, catalog or load_catalog(), runs.inputs(local=local))
    return PreparedCampaign(request, planned, _driver_settings(request, recorded))


def _with_profile_replay(request: CampaignRequest) -> CampaignRequest:
    """The request whose runs replay the profile's ``replay`` when no other is given."""
    if request.runs.replay is not None or request.profile.replay is None:
        return request
    runs = dataclasses.replace(request.runs, replay=Path(request.profile.replay))
    return dataclasses.replace(request, runs=runs)


def _driver_settings(request: CampaignRequest, recorded: RunSettings) -> DriverSettings:
    profile = request.profile
    return DriverSettings(
        profile=profile.name,
        resume=request.resume,
        provider_limits=profile.concurrency.providers,
        budget=profile.budget.model_copy(update=dict(request.budget)),
        prices=profile.prices,
        stop_after_infra_errors=profile.retry.stop_after_infra_errors,
        retry=profile.retry,
        run_settings=recorded,
    )


def execute_campaign(
    prepared: PreparedCampaign, progress: ProgressSink | None = None
) -> CampaignReport:
    """Run every planned run without a complete record; ``progress`` hears every change."""
    request = prepared.request
    executor = make_executor(request, request.runs.run_function(request.results))
    return run_campaign(prepared.results, prepared.runs, executor, prepared.driver, progress)


def make_executor(request: CampaignRequest, run_fn: RunFn) -> Executor:
    """The request's executor, running ``run_fn`` under the profile's retry policy."""
    profile, choice = request.profile, request.executor
    policy = profile.retry
    if request.runs.simulation is not None:
        policy = policy.model_copy(update=_SIMULATED_DELAYS)
    if choice.name == "ray":
        return _ray_executor(run_fn, policy, profile, choice)
    return LocalExecutor(run_fn, choice.jobs or profile.concurrency.jobs, policy)


def _ray_executor(
    run_fn: RunFn, policy: RetryPolicy, profile: Profile, choice: ExecutorChoice
) -> Executor:
    from m4bench.campaign.ray_executor import RayExecutor

    return RayExecutor(
        run_fn,
        policy,
        jobs=choice.jobs,
        address=choice.ray_address,
        cpus_per_run=profile.concurrency.cpus_per_run,
        memory_mb_per_run=profile.concurrency.memory_mb_per_run,
    )


def budget_overrides(
    cost: float | None, tokens: int | None, hours: float | None
) -> dict[str, float | int]:
    """The budget the options set, over the profile's; each a positive finite number."""
    update: dict[str, float | int] = {}
    if cost is not None:
        update["max_cost_usd"] = _positive("--max-cost", cost)
    if tokens is not None:
        update["max_tokens"] = int(_positive("--max-tokens", tokens))
    if hours is not None:
        update["max_wall_seconds"] = _positive("--max-hours", hours) * 3600
    return update


def _positive(option: str, value: float) -> float:
    if not (math.isfinite(value) and value > 0):
        raise M4BenchError(
            f"{option} {value:g}: a budget must be a positive finite number",
            hint=f"give {option} a number above 0, or leave it out for the profile's [budget]",
        )
    return value
