"""Campaigns: matrices of runs described as profiles, executed resumably.

Public API::

    load_profile(name_or_path) -> Profile
    plan_campaign(profile, PlanOptions(...), catalog) -> list[PlannedRun]
    run_campaign(ResultsDir(root), runs, executor, DriverSettings(...), progress) -> CampaignReport
    campaign_status(ResultsDir(root)) -> CampaignStatus
    LocalExecutor(run_fn, jobs, RetryPolicy()), RayExecutor(run_fn, RetryPolicy(), ...)

A run function is any ``Callable[[PlannedRun], RunOutcome]``; it returns an outcome for
anything the agent did (failures included) and raises ``TransientError`` or
``InfrastructureError`` only when the run could not happen.
"""

from m4bench.campaign.driver import CampaignReport, DriverSettings, run_campaign
from m4bench.campaign.executors import Executor, LocalExecutor
from m4bench.campaign.identity import Cell, PlannedRun, run_id
from m4bench.campaign.plan import PlanOptions, plan_campaign, schedule_order
from m4bench.campaign.profile import Profile, load_profile, shipped_profiles
from m4bench.campaign.records import RunOutcome, RunResult, Usage
from m4bench.campaign.retry import InfrastructureError, RetryPolicy, RunFn, TransientError
from m4bench.campaign.selection import TaskFacts, TaskSelector, facts_from_catalog
from m4bench.campaign.simulate import SimulatedRun
from m4bench.campaign.status import CampaignStatus, CellStatus, campaign_status
from m4bench.campaign.store import ResultsDir

__all__ = [
    "CampaignReport",
    "CampaignStatus",
    "Cell",
    "CellStatus",
    "DriverSettings",
    "Executor",
    "InfrastructureError",
    "LocalExecutor",
    "PlanOptions",
    "PlannedRun",
    "Profile",
    "ResultsDir",
    "RetryPolicy",
    "RunFn",
    "RunOutcome",
    "RunResult",
    "SimulatedRun",
    "TaskFacts",
    "TaskSelector",
    "TransientError",
    "Usage",
    "campaign_status",
    "facts_from_catalog",
    "load_profile",
    "plan_campaign",
    "run_campaign",
    "run_id",
    "schedule_order",
    "shipped_profiles",
]
