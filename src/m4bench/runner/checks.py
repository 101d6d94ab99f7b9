"""What can be checked about a run before it starts: its task, source, ground truth,
agent database, the condition's and schema's prerequisites, its timeout and the agent's
inputs.

:func:`prepare_run` makes the same checks (a failure is recorded as a ``harness_error``
there); :func:`check_run` makes them without writing anything, so ``m4bench run`` can
refuse a mistake (exit 2) instead of replacing a run's record with a failed attempt.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from m4bench.agents.base import AgentContext
from m4bench.agents.registry import get_adapter
from m4bench.errors import M4BenchError
from m4bench.home import DataHome
from m4bench.provision.equivalence import load_mapping
from m4bench.provision.ground_truth import ground_truth_path
from m4bench.provision.layout import check_schema_exists, task_catalog_paths
from m4bench.provision.mapping import SchemaMapping
from m4bench.results.identity import DEFAULT_MODEL, RunSpec
from m4bench.runner.agent_choice import BUILTIN_NAMES, check_agent_name, mutant_sql
from m4bench.runner.agent_command import check_agent_command
from m4bench.runner.builtin_agents import (
    MUTANT_PREFIX,
    NO_REPLAY_FILE,
    NO_REPLAY_HINT,
    replay_adapter,
)
from m4bench.runner.conditions import check_condition, schema_rewriter
from m4bench.sources.defaults import DEFAULT_SOURCES, check_same_dataset
from m4bench.sources.layout import list_source_names, load_source
from m4bench.tasks.catalog import Catalog, Task

if TYPE_CHECKING:
    from m4bench.runner.execute import RunOptions

_CHECK_WORKDIR = Path("/workdir")  # where the agent would see its workdir; nothing is made
MIN_TIMEOUT_SECONDS = 1
MAX_TIMEOUT_SECONDS = 7 * 24 * 3600
"""A run's timeout, in seconds: one second to a week, generous for any agent and well
within what the limits derived from it (CPU time: twice the timeout) can express."""


def check_timeout(seconds: float, origin: str, hint: str) -> float:
    """``seconds`` when it is a timeout a run can have, else a user error saying where
    it came from (``origin``) and the range."""
    if not MIN_TIMEOUT_SECONDS <= seconds <= MAX_TIMEOUT_SECONDS:  # NaN fails too
        raise M4BenchError(
            f"{origin}: {seconds:g} s is not a timeout a run can have: give "
            f"{MIN_TIMEOUT_SECONDS} to {MAX_TIMEOUT_SECONDS} seconds (7 days)",
            hint=hint,
        )
    return float(seconds)


def run_timeout(task: Task, timeout: float | None) -> float:
    """The run's timeout: ``timeout`` when given, else the task card's, checked."""
    if timeout is not None:
        return check_timeout(timeout, "timeout", "pass a timeout in that range")
    seconds = task.card.evaluation.timeout_seconds
    where = f"{task.card_path}: evaluation.timeout_seconds"
    return check_timeout(seconds, where, "set the card's timeout in that range")


def source_build_commands(dataset: str, source: str) -> str:
    """The commands that build a source named ``source`` of ``dataset``, for hints."""
    if source == DEFAULT_SOURCES.get(dataset):
        return f"`m4bench data synth {dataset}`"
    return (
        f"`m4bench data synth {dataset} --name {source}` or "
        f"`m4bench data ingest {dataset} PATH --name {source}`"
    )


def check_source(home: DataHome, source: str, task: Task) -> None:
    """``source`` exists and holds ``task``'s dataset; a missing one is named with the
    command that builds a source of that dataset."""
    dataset = task.card.dataset
    if source not in list_source_names(home):
        build = source_build_commands(dataset, source)
        raise M4BenchError(
            f"no source named {source!r} in {home.sources} (task {task.name} reads {dataset} data)",
            hint=f"build it with {build}, then `m4bench setup --source {source} "
            f"--task {task.name}`; or name another {dataset} source with --source",
        )
    found = load_source(home, source).manifest.dataset
    check_same_dataset(task.name, dataset, source, found)


def task_inputs(
    spec: RunSpec, home: DataHome, source: str, catalog: Catalog
) -> tuple[Task, Path, SchemaMapping | None]:
    """The run's task, its ground truth and (for a perturbed schema) the schema mapping;
    raises a user error naming what is missing and the command that builds it."""
    task = catalog.task(spec.task)
    check_schema_exists(task.card.dataset, spec.schema_name, f"task {task.name} reads")
    check_source(home, source, task)
    truth = ground_truth_path(home, source, task)
    if not truth.exists():
        raise M4BenchError(
            f"{truth}: no ground truth for {task.name}",
            hint=f"build it with `m4bench setup --source {source} --task {task.name}`",
        )
    mapping = load_mapping(home, source) if spec.schema_name != "native" else None
    database = task_catalog_paths(home, source, spec.schema_name, task.name)
    if not database.manifest.exists():
        raise M4BenchError(
            f"{database.root}: no agent database for {task.name} ({spec.schema_name} schema)",
            hint=f"build it with `m4bench setup --source {source} --task {task.name} "
            f"--schema {spec.schema_name}`",
        )
    return task, truth, mapping


def check_run(
    spec: RunSpec, *, home: DataHome, source: str, options: RunOptions, catalog: Catalog
) -> None:
    """Everything about ``spec`` that can be wrong before the run starts, checked
    without writing anything: task, schema, source and its dataset, ground truth, agent
    database, what the condition needs (an operational spec, skills, a decoy, the
    reference query), the timeout, and what the agent needs (a replay file, a mutant,
    an endpoint and a model, its program on the sandbox's PATH). Raises a user error
    saying what to do."""
    task, _, mapping = task_inputs(spec, home, source, catalog)
    rewrite = schema_rewriter(spec.schema_name, mapping)
    check_condition(task, spec.condition, catalog, rewrite)
    run_timeout(task, options.timeout)
    check_agent_inputs(spec, task, options)


def check_agent_inputs(spec: RunSpec, task: Task, options: RunOptions) -> None:
    """The agent's own inputs, as :func:`~m4bench.runner.agent_choice.resolve_adapter`
    and the adapter's ``command`` will need them."""
    name = spec.agent
    check_agent_name(name)
    if name == "replay":
        if options.replay_file is None:
            raise M4BenchError(NO_REPLAY_FILE, hint=NO_REPLAY_HINT)
        replay_adapter(options.replay_file, options.endpoint)
    elif name.startswith(MUTANT_PREFIX):
        mutant_sql(name, task, options.mutants)
    elif name not in BUILTIN_NAMES:
        adapter = get_adapter(name)
        ctx = AgentContext(
            workdir=_CHECK_WORKDIR,
            instruction_path=_CHECK_WORKDIR / "instruction.md",
            model=None if spec.model == DEFAULT_MODEL else spec.model,
            endpoint=options.endpoint,
        )
        argv = adapter.command(ctx)
        adapter.default_endpoints(ctx)  # an endpoint that is not an http(s) URL
        path = adapter.environment(ctx).get("PATH", "")
        check_agent_command(name, argv, path, options.sandbox)
