"""The real run function: one planned run executed by :mod:`m4bench.runner`.

The runner keeps its folder of each run (attempt folders with the agent's workdir, logs
and artifacts) under ``<results>/work/<run_id>/``. Its record is handed back to the
driver, which writes it as the run's only record, ``<results>/runs/<run_id>/result.json``,
and removes the runner's copy. A runner record left under ``work/`` by a campaign that
died before writing it is adopted instead of paying for the run again.

A runner ``harness_error`` is raised as :class:`InfrastructureError` (the run did not
happen: retried, and left missing if retries run out); every other status, agent
failures included, is a record. The runner's own rule holds under ``work/`` as under a
folder of runs: a complete record there is adopted, never replaced by a later attempt's;
an incomplete one is replaced.

A ``replay`` run replays its task's file of the campaign's ``replay`` path
(:mod:`m4bench.campaign.replay`); the runner checks the file is the one the run was
planned with (its digest is in the run's id).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from m4bench.campaign.replay import REPLAY_AGENT, replay_file
from m4bench.campaign.retry import InfrastructureError
from m4bench.home import DataHome
from m4bench.results.campaign_files import PlannedRun
from m4bench.results.identity import RunSpec, spec_of
from m4bench.results.layout import CampaignFolder
from m4bench.results.read import is_complete, read_result
from m4bench.results.record import ResultRecord
from m4bench.runner import RunOptions, execute_run
from m4bench.sources.defaults import DEFAULT_SOURCES
from m4bench.tasks.catalog import Catalog, extra_task_roots, load_catalog
from m4bench.tasks.mutants import catalog_mutant_source


@dataclass(frozen=True)
class RunnerRunFn:
    """A picklable run function (it travels to Ray workers)."""

    home: Path
    results: Path
    sources: dict[str, str] = field(default_factory=lambda: dict(DEFAULT_SOURCES))
    sandbox: str | None = None
    endpoint: str | None = None
    task_roots: tuple[Path, ...] = field(default_factory=extra_task_roots)
    replay: Path | None = None
    """The file, or folder of per-task files, the ``replay`` agent replays."""

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

    def __call__(self, run: PlannedRun) -> ResultRecord:
        folder = CampaignFolder(self.results)
        finished = _finished_earlier(folder, run.run_id)
        if finished is not None:
            return finished
        home = DataHome.from_env(self.home)
        source = self.sources[self.catalog.task(run.cell.task).card.dataset]
        record = execute_run(
            spec_for(run),
            home=home,
            source=source,
            results_dir=folder.work,
            sandbox=self.sandbox,
            timeout=run.timeout_seconds,
            options=self._options_for(run),
        )
        if record.status == "harness_error":
            raise InfrastructureError(record.error or record.status_detail)
        return record

    def _options_for(self, run: PlannedRun) -> RunOptions:
        options = self.options()
        if self.replay is None or run.cell.agent != REPLAY_AGENT:
            return options
        return dataclasses.replace(options, replay_file=replay_file(self.replay, run.cell.task))


def spec_for(run: PlannedRun) -> RunSpec:
    return spec_of(run.cell, run.trial)


def _finished_earlier(folder: CampaignFolder, run_id: str) -> ResultRecord | None:
    """A run the runner finished but the campaign never recorded (the campaign process
    died in between): adopt it instead of paying for the run again."""
    produced = folder.runner_folder(run_id).result
    if not produced.exists() or not is_complete(produced):
        return None
    return read_result(produced)
