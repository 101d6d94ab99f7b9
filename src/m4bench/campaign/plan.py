"""Planning: a profile, an agent choice and a task catalog become a list of runs.

The plan is deterministic: runs come out sorted by id, and every run carries what its
execution needs (timeout, provider, a duration prior). Scheduling order (slowest
first) is a separate view of the same runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from m4bench.campaign.priors import DurationPriors, shipped_priors
from m4bench.campaign.profile import Block, Profile
from m4bench.campaign.selection import (
    TaskFacts,
    TaskSelector,
    facts_from_catalog,
    select_tasks,
    unknown_tasks,
)
from m4bench.errors import M4BenchError
from m4bench.results.campaign_files import PlannedRun
from m4bench.results.identity import Cell
from m4bench.sources.datasets import PERTURBED_DATASETS, dataset_facts
from m4bench.wording import close_names


@dataclass(frozen=True)
class PlanOptions:
    """Command-line overrides: which agents, which models, how many trials."""

    agents: tuple[str, ...] = ()
    models: tuple[str, ...] = ()
    trials: int | None = None
    strict: bool = True
    """Explicitly named tasks must exist in the catalog (when one is given)."""


def plan_campaign(
    profile: Profile,
    options: PlanOptions = PlanOptions(),
    catalog: Sequence[TaskFacts] | None = None,
) -> list[PlannedRun]:
    """Every run of the profile for the chosen agents, sorted by run id.

    ``catalog`` resolves selectors; when given, explicitly named tasks must exist in it.
    """
    for model in options.models:
        if not model.strip():
            raise M4BenchError(
                f"--model: {model!r} names nothing",
                hint="give --model a model name, or leave it out for the profile's models",
            )
    agents = options.agents or (profile.default_agent,)
    for agent in agents:
        if agent not in profile.agents:
            raise M4BenchError(
                f"profile {profile.name!r} has no plan for agent {agent!r}",
                hint=f"agents in this profile: {', '.join(sorted(profile.agents))}",
            )
    if catalog is not None and options.strict:
        check_named_tasks(profile, catalog)
    _check_schemas(profile, catalog)
    priors = profile.priors or shipped_priors()
    runs: dict[str, PlannedRun] = {}
    for agent in agents:
        for block in profile.blocks:
            if block.agents is not None and agent not in block.agents:
                continue
            for run in _block_runs(profile, block, agent, options, catalog, priors):
                runs.setdefault(run.run_id, run)
    return [runs[key] for key in sorted(runs)]


def block_tasks(block: Block, catalog: Sequence[TaskFacts] | None) -> list[str]:
    if block.tasks is not None:
        return sorted(block.tasks)
    selector = block.select if block.select is not None else TaskSelector()
    return select_tasks(selector, catalog)


def _block_runs(
    profile: Profile,
    block: Block,
    agent: str,
    options: PlanOptions,
    catalog: Sequence[TaskFacts] | None,
    priors: DurationPriors,
) -> list[PlannedRun]:
    plan = profile.agents[agent]
    if options.models:
        models = list(options.models)
    elif isinstance(block.models, str):
        models = plan.role(block.models, agent)
    else:
        models = block.models
    trials = options.trials or block.trials or profile.trials
    tasks = block_tasks(block, catalog)
    runs: list[PlannedRun] = []
    for task in tasks:
        for condition in block.conditions:
            for schema in block.schemas:
                for model in models:
                    for reasoning in plan.reasoning:
                        cell = Cell(
                            task=task,
                            condition=condition,
                            schema_name=schema,
                            agent=agent,
                            model=model,
                            reasoning=reasoning,
                        )
                        runs.extend(
                            PlannedRun(
                                cell=cell,
                                trial=trial,
                                timeout_seconds=profile.timeouts.for_task(task),
                                provider=plan.provider,
                                prior_seconds=priors.seconds(task, condition),
                            )
                            for trial in range(1, trials + 1)
                        )
    return runs


def _check_schemas(profile: Profile, catalog: Sequence[TaskFacts] | None) -> None:
    """Perturbed schemas exist only for the datasets that have them. A task's dataset is
    its card's: a plan given no catalog reads the task catalog's cards for this check."""
    blocks = [b for b in profile.blocks if any(s != "native" for s in b.schemas)]
    if not blocks:
        return
    facts = facts_from_catalog() if catalog is None else catalog
    datasets = {fact.name: fact.database for fact in facts}
    for block in blocks:
        perturbed = [schema for schema in block.schemas if schema != "native"]
        tasks = block_tasks(block, facts)
        native_only = [t for t in tasks if t in datasets and datasets[t] not in PERTURBED_DATASETS]
        if native_only:
            labels = sorted({dataset_facts(datasets[t]).label for t in native_only})
            raise M4BenchError(
                f"block {block.name!r}: schemas {perturbed} do not exist for "
                f"{' or '.join(labels)} tasks ({', '.join(native_only)})",
                hint='give those tasks their own block with schemas = ["native"]',
            )


def check_named_tasks(
    profile: Profile, catalog: Sequence[TaskFacts], where: str | None = None
) -> None:
    """Refuse a profile naming a task the catalog does not hold, suggesting names as
    ``m4bench run --task`` does. ``where``: the profile's file, for the message."""
    names = [task.name for task in catalog]
    for index, block in enumerate(profile.blocks):
        missing = unknown_tasks(block.tasks or [], catalog)
        if missing:
            close = [near for name in missing for near in close_names(name, names)]
            raise M4BenchError(
                f"{where or f'profile {profile.name!r}'}: field blocks[{index}] "
                f"({block.name!r}).tasks: not in the task catalog: {', '.join(missing)}",
                hint=f"did you mean {', '.join(dict.fromkeys(close))}?"
                if close
                else "see `m4bench tasks list`",
            )


def schedule_order(runs: Sequence[PlannedRun]) -> list[PlannedRun]:
    """Slowest expected runs first; ties broken by trial, then id (deterministic).

    Trial before id spreads a cell's trials over time, so an early stop leaves every
    cell with some trials rather than some cells complete and others empty.
    """
    return sorted(runs, key=lambda run: (-run.prior_seconds, run.trial, run.run_id))
