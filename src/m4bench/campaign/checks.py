"""What a campaign of real runs can get wrong, checked before anything is written.

The checks of ``m4bench run`` (:mod:`m4bench.runner.checks`) that hold for the whole
campaign or for a cell of its profile:

* per cell: what the condition needs of the task (an operational spec, skills, a
  decoy, the reference query), the timeout, and the agent's inputs (react's endpoint
  and model, a mutant of the task, a replay file, a CLI agent's program on the
  sandbox's PATH);
* per invocation: the sandbox backend, that the source of each dataset the runs
  read (and each named with ``--source``) exists and holds that dataset, and that each
  agent's API key is set (:mod:`m4bench.runner.credentials`).

A perturbed schema asked for eICU tasks is refused earlier, by planning (per block).

What ``m4bench setup`` builds per task and schema (ground truth, agent database, schema
mapping) is left to the runs: one that is missing makes its runs infrastructure errors
whose hint is the setup command, and the campaign runs the tasks that are set up.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from m4bench.agents.registry import BUILTIN_ADAPTERS, get_adapter
from m4bench.campaign.replay import REPLAY_AGENT, replay_file
from m4bench.campaign.runner_bridge import spec_for
from m4bench.errors import M4BenchError
from m4bench.home import DataHome
from m4bench.results.campaign_files import PlannedRun
from m4bench.runner import RunOptions
from m4bench.runner.checks import check_agent_inputs, check_timeout, source_build_commands
from m4bench.runner.conditions import check_condition
from m4bench.runner.credentials import missing_credentials
from m4bench.sandbox import SANDBOX_NAMES
from m4bench.sources.defaults import DEFAULT_SOURCES
from m4bench.sources.layout import list_source_names, load_source
from m4bench.tasks.catalog import Catalog
from m4bench.tasks.mutants import catalog_mutant_source


@dataclass(frozen=True)
class CampaignInputs:
    """What the runs of a campaign are executed with."""

    home: DataHome
    sources: Mapping[str, str]
    """The source of each dataset (the defaults included)."""
    named: frozenset[str]
    """The datasets whose source was named with ``--source``."""
    sandbox: str
    endpoint: str | None = None
    replay: Path | None = None
    """The replay file or folder (:mod:`m4bench.campaign.replay`)."""
    local: bool = True
    """The runs execute on this machine. With Ray they run on the cluster's nodes, whose
    data home and agent programs this machine may not have: those are checked by each
    run there (a missing one is an infrastructure error naming it)."""


def check_sandbox(name: str) -> str:
    """``name`` when it is a sandbox backend, else a user error naming the choices."""
    if name not in SANDBOX_NAMES:
        raise M4BenchError(
            f"--sandbox {name!r}: no such sandbox",
            hint=f"choose one of: {', '.join(SANDBOX_NAMES)}",
        )
    return name


def check_cells(runs: Sequence[PlannedRun], catalog: Catalog, where: str) -> None:
    """Each cell's task has what its condition needs, and a timeout a run can have;
    ``where`` (the profile) starts the message of a mistake."""
    seen: set[tuple[str, str, str, float]] = set()
    for run in runs:
        cell = run.cell
        key = (cell.task, cell.condition, cell.schema_name, run.timeout_seconds)
        if key in seen:
            continue
        seen.add(key)
        task = catalog.task(cell.task)
        try:
            check_condition(task, cell.condition, catalog)
        except M4BenchError as exc:
            raise M4BenchError(f"{where}: cell {cell.key}: {exc.message}", exc.hint) from exc
        check_timeout(
            run.timeout_seconds,
            f"{where}: the timeout of {task.name}",
            hint=f"set [timeouts] default_seconds (or tasks.{task.name}) in that range",
        )


def check_inputs(runs: Sequence[PlannedRun], catalog: Catalog, inputs: CampaignInputs) -> None:
    """The sandbox, the sources and every agent's inputs, as ``m4bench run`` checks
    them; raises a user error saying what to do."""
    check_sandbox(inputs.sandbox)
    if not inputs.local:
        return
    read = {catalog.task(run.cell.task).card.dataset for run in runs}
    for dataset in sorted(read | inputs.named):
        check_campaign_source(inputs.home, dataset, inputs.sources[dataset], dataset in read)
    options = RunOptions(
        sandbox=inputs.sandbox,
        endpoint=inputs.endpoint,
        mutants=catalog_mutant_source(catalog),
        catalog=catalog,
    )
    for run in _one_per_agent_input(runs):
        given = options
        if run.cell.agent == REPLAY_AGENT and inputs.replay is not None:
            given = dataclasses.replace(
                options, replay_file=replay_file(inputs.replay, run.cell.task)
            )
        check_agent_inputs(spec_for(run), catalog.task(run.cell.task), given)
    check_credentials({run.cell.agent for run in runs}, inputs.endpoint)


def check_credentials(agents: Iterable[str], endpoint: str | None) -> None:
    """Each agent has its API key in the environment (the react agent needs none for a
    local endpoint); the error names the variable and the agent, never a value."""
    for agent in sorted(set(agents) & set(BUILTIN_ADAPTERS)):
        problem = missing_credentials(agent, get_adapter(agent), endpoint)
        if problem is not None:
            raise M4BenchError(
                problem,
                hint="export it in the shell that runs m4bench, then run the campaign "
                "again (`m4bench preflight --profile PROFILE` checks every input)",
            )


def check_campaign_source(home: DataHome, dataset: str, source: str, read: bool) -> None:
    """``source`` exists and holds ``dataset``; a mistake names the ``--source`` option.
    ``read``: the campaign has tasks of ``dataset`` (else the source was only named)."""
    option = f"--source {dataset}={source}"
    if source not in list_source_names(home):
        build = source_build_commands(dataset, source)
        readers = f" (the campaign's {dataset} tasks read it)" if read else ""
        raise M4BenchError(
            f"{option}: no source named {source!r} in {home.sources}{readers}",
            hint=f"build it with {build}, then `m4bench setup --source {source}`; or name "
            f"another {dataset} source with --source {dataset}=NAME",
        )
    found = load_source(home, source).manifest.dataset
    if found != dataset:
        raise M4BenchError(
            f"{option}: source {source!r} holds {found} data, not {dataset}",
            hint=f"name a {dataset} source with --source {dataset}=NAME (the synthetic one "
            f"is {DEFAULT_SOURCES.get(dataset, 'not built in')})",
        )


def _one_per_agent_input(runs: Iterable[PlannedRun]) -> list[PlannedRun]:
    """One run per (agent, model, task): what an agent's inputs depend on."""
    chosen: dict[tuple[str, str, str], PlannedRun] = {}
    for run in runs:
        chosen.setdefault((run.cell.agent, run.cell.model, run.cell.task), run)
    return list(chosen.values())
