"""The real run function: one planned run executed by :mod:`m4bench.runner`.

The runner keeps its own files (attempt directories with the agent's workdir, logs and
artifacts) under ``<results>/work/<run_id>/``. Its ``result.json`` there is renamed to
``runner-result.json`` as soon as the runner returns: the campaign's own
``<results>/runs/<run_id>/result.json``, which embeds the runner's record, is the only
``result.json`` of a run, so readers that collect every ``result.json`` of a results
tree see each run once.

A runner ``harness_error`` is raised as :class:`InfrastructureError` (the run did not
happen: retried, and left missing if retries run out); every other status, agent
failures included, is an outcome.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from m4bench.campaign.identity import PlannedRun
from m4bench.campaign.records import RunOutcome, Usage
from m4bench.campaign.retry import InfrastructureError
from m4bench.campaign.store import RUNNER_RESULT, WORK_DIR
from m4bench.home import DataHome
from m4bench.runner import (
    ResultRecord,
    RunOptions,
    RunSpec,
    execute_run,
    is_complete,
    load_result,
)
from m4bench.sources.defaults import DEFAULT_SOURCES
from m4bench.tasks.catalog import Catalog, extra_task_roots, load_catalog
from m4bench.tasks.mutants import catalog_mutant_source

KEPT_AS = "runner-result.json"


@dataclass(frozen=True)
class RunnerRunFn:
    """A picklable run function (it travels to Ray workers)."""

    home: Path
    results: Path
    sources: dict[str, str] = field(default_factory=lambda: dict(DEFAULT_SOURCES))
    sandbox: str | None = None
    endpoint: str | None = None
    task_roots: tuple[Path, ...] = field(default_factory=extra_task_roots)

    @cached_property
    def catalog(self) -> Catalog:
        """The task catalog, loaded once per process (about a second per load), with the
        user's task folders resolved where the campaign started (so Ray workers use them)."""
        return load_catalog(extra_roots=self.task_roots)

    def options(self) -> RunOptions:
        """How the runner executes each run: as ``m4bench run`` does, the catalog's
        mutants included (so ``mutant:NAME`` agents run); the sandbox comes apart."""
        return RunOptions(
            endpoint=self.endpoint,
            mutants=catalog_mutant_source(self.catalog),
            catalog=self.catalog,
        )

    def __call__(self, run: PlannedRun) -> RunOutcome:
        work = self.results / WORK_DIR
        finished = _finished_earlier(work / run.run_id)
        if finished is not None:
            return outcome_from_record(finished)
        record = execute_run(
            spec_for(run),
            home=DataHome.from_env(self.home),
            source=self.sources[dataset_of(run.cell.task)],
            results_dir=work,
            sandbox=self.sandbox,
            timeout=run.timeout_seconds,
            options=self.options(),
        )
        _set_aside_runner_records(work / run.run_id)
        if record.status == "harness_error":
            raise InfrastructureError(record.error or record.status_detail)
        return outcome_from_record(record)


def spec_for(run: PlannedRun) -> RunSpec:
    cell = run.cell
    return RunSpec.model_validate(
        {
            "task": cell.task,
            "condition": cell.condition,
            "schema": cell.schema_name,
            "agent": cell.agent,
            "model": cell.model,
            "reasoning": cell.reasoning,
            "trial": run.trial,
        }
    )


def dataset_of(task: str) -> str:
    """Task names start with their dataset's prefix (``mimic-``, ``eicu-``)."""
    return "eicu" if task.startswith("eicu-") else "mimic-iv"


def outcome_from_record(record: ResultRecord) -> RunOutcome:
    usage = record.usage
    cached = usage.input_cache_read
    return RunOutcome(
        reward=record.reward,
        failure_reason=None if record.status == "ok" else record.status,
        publishable=record.publishable,
        usage=Usage(
            input_tokens=usage.input_uncached + cached + usage.input_cache_write,
            cached_input_tokens=cached,
            output_tokens=usage.output,
            cost_usd=usage.cost_usd,
        ),
        elapsed_seconds=record.timings.total,
        record=record.model_dump(mode="json", by_alias=True),
    )


def _finished_earlier(run_dir: Path) -> ResultRecord | None:
    """A run the runner finished but the campaign never recorded (the campaign process
    died in between): adopt it instead of paying for the run again."""
    produced = run_dir / RUNNER_RESULT
    if not produced.exists():
        return None
    complete = is_complete(run_dir)
    record = load_result(run_dir) if complete else None
    _set_aside_runner_records(run_dir)
    return record


def _set_aside_runner_records(run_dir: Path) -> None:
    """Rename the runner's result.json (also one left by an attempt cut short)."""
    produced = run_dir / RUNNER_RESULT
    if produced.exists():
        produced.replace(run_dir / KEPT_AS)
