"""Shared pieces of the runner tests: sources and the Bench runner.

A plain module (not conftest) so test modules can import it by a unique name.
A small synthetic MIMIC-IV source (a copy of the shared one) is provisioned natively
once per session, for runs.

Runs share one data home; each test gets its own results directory. The catalog is
loaded once and passed to every run, as a campaign would.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from m4bench.home import DataHome
from m4bench.provision.provisioner import setup
from m4bench.runner import ResultRecord, RunOptions, RunSpec, execute_run
from m4bench.tasks.catalog import Catalog, Task

SOURCE = "run-mimic"
EICU_SOURCE = "run-eicu"
# The tasks the fast tests run; slow tests provision the rest.
_RUNNER_FILLED = ("endpoint", "replay_sha256")
FAST_TASKS = ["mimic-kdigo-48h", "mimic-meld-24h", "mimic-sofa-24h-raw", "mimic-ventilation"]


@dataclass(frozen=True)
class Bench:
    home: DataHome
    catalog: Catalog

    def run(
        self,
        results: Path,
        task: str,
        agent: str,
        sandbox: str = "bwrap",
        source: str = SOURCE,
        **fields: object,
    ) -> ResultRecord:
        # The endpoint is an option: the runner puts it into the identity itself.
        spec_fields = {
            k: v
            for k, v in fields.items()
            if (k in RunSpec.model_fields or k == "schema") and k not in _RUNNER_FILLED
        }
        option_fields = {k: v for k, v in fields.items() if k not in spec_fields}
        spec = RunSpec.model_validate({"task": task, "agent": agent, **spec_fields})
        options = RunOptions(
            sandbox=sandbox,
            catalog=self.catalog,
            **option_fields,  # type: ignore[arg-type]
        )
        return execute_run(
            spec, home=self.home, source=source, results_dir=results, options=options
        )


def provision(bench: Bench, tasks: Sequence[Task]) -> None:
    """Native setup of the MIMIC-IV ones of ``tasks`` (tasks already current are skipped)."""
    names = [task.name for task in tasks if task.card.dataset == "mimic-iv"]
    setup(bench.home, SOURCE, names, "native", progress=False)
