"""Campaigns: matrices of runs described as profiles, executed resumably.

Public API::

    load_profile(name_or_path) -> Profile
    plan_campaign(profile, PlanOptions(...), catalog) -> list[PlannedRun]
    prepare_campaign(CampaignRequest(...)) -> PreparedCampaign   # checked; writes nothing
    execute_campaign(prepared, progress) -> CampaignReport
    campaign_status(ResultsDir(root)) -> CampaignStatus

Lower down: ``run_campaign(ResultsDir(root), runs, executor, DriverSettings(...))`` with
``LocalExecutor(run_fn, jobs, RetryPolicy())`` or ``RayExecutor(run_fn, RetryPolicy(), ...)``.
A run function is any ``Callable[[PlannedRun], ResultRecord]``; it returns the run's
record for anything the agent did (failures included) and raises ``TransientError`` or
``InfrastructureError`` only when the run could not happen. The records and the results
folder are the results layer's (:mod:`m4bench.results`).
"""

from m4bench.campaign.driver import CampaignReport, DriverSettings, run_campaign
from m4bench.campaign.executors import Executor, LocalExecutor
from m4bench.campaign.launch import (
    CampaignRequest,
    ExecutorChoice,
    PreparedCampaign,
    RunSetup,
    execute_campaign,
    plan_profile,
    prepare_campaign,
)
from m4bench.campaign.plan import PlanOptions, plan_campaign, schedule_order
from m4bench.campaign.profile import Profile, load_profile, shipped_profiles
from m4bench.campaign.progress import ProgressSink, Tally
from m4bench.campaign.retry import InfrastructureError, RetryPolicy, RunFn, TransientError
from m4bench.campaign.selection import TaskFacts, TaskSelector, facts_from_catalog
from m4bench.campaign.simulate import SimulatedRun
from m4bench.campaign.status import CampaignStatus, CellStatus, campaign_status
from m4bench.campaign.store import ResultsDir
from m4bench.results.campaign_files import PlannedRun, RunSettings
from m4bench.results.identity import Cell, run_id

__all__ = [
    "CampaignReport",
    "CampaignRequest",
    "CampaignStatus",
    "Cell",
    "CellStatus",
    "DriverSettings",
    "Executor",
    "ExecutorChoice",
    "InfrastructureError",
    "LocalExecutor",
    "PlanOptions",
    "PlannedRun",
    "PreparedCampaign",
    "Profile",
    "ProgressSink",
    "ResultsDir",
    "RetryPolicy",
    "RunFn",
    "RunSettings",
    "RunSetup",
    "SimulatedRun",
    "Tally",
    "TaskFacts",
    "TaskSelector",
    "TransientError",
    "campaign_status",
    "execute_campaign",
    "facts_from_catalog",
    "load_profile",
    "plan_campaign",
    "plan_profile",
    "prepare_campaign",
    "run_campaign",
    "run_id",
    "schedule_order",
    "shipped_profiles",
]
