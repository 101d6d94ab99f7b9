"""The demo's agents: the oracle, a replayed half answer, a known-wrong mutant, and
``react`` when a model endpoint is configured.

They run through the real runner and sandbox like any agent. ``replay`` replays a script
the demo writes per task (the reference answer with every other row dropped), so the
report shows a partial answer next to a perfect one; ``mutant:first`` runs each task's
first known-wrong variant of its reference.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from m4bench.campaign.identity import PlannedRun
from m4bench.campaign.records import RunOutcome
from m4bench.campaign.retry import InfrastructureError
from m4bench.campaign.runner_bridge import dataset_of, outcome_from_record, spec_for
from m4bench.fileio import atomic_write_text
from m4bench.home import DataHome
from m4bench.provision.agent_catalog import load_catalog_manifest
from m4bench.provision.layout import task_catalog_paths
from m4bench.runner import RunOptions, execute_run
from m4bench.runner.oracle_plan import oracle_statements
from m4bench.tasks.catalog import Catalog, load_catalog
from m4bench.tasks.mutants import catalog_mutant_source

ORACLE = "oracle"
REPLAY = "replay"
MUTANT = "mutant:first"
REACT = "react"
REPLAY_DIR = "replay"

_REPLAY_SCRIPT = '''"""Replay: the reference answer with every other row dropped."""
import duckdb

STATEMENTS = {statements!r}
con = duckdb.connect("agent.duckdb")
for statement in STATEMENTS:
    con.execute(statement)
con.close()
with open("output.csv", encoding="utf-8") as handle:
    lines = handle.readlines()
with open("output.csv", "w", encoding="utf-8") as handle:
    handle.writelines(lines[:1] + lines[1::2])
'''


@dataclass(frozen=True)
class DemoRunFn:
    """Runs one planned demo run in the sandbox and returns its outcome."""

    home: Path
    results: Path
    sources: dict[str, str]
    sandbox: str = "bwrap"
    endpoint: str | None = None
    catalog: Catalog = field(default_factory=load_catalog)

    def __call__(self, run: PlannedRun) -> RunOutcome:
        home = DataHome.from_env(self.home)
        source = self.sources[dataset_of(run.cell.task)]
        options = RunOptions(
            sandbox=self.sandbox,
            endpoint=self.endpoint,
            mutants=catalog_mutant_source(self.catalog),
            catalog=self.catalog,
            replay_file=self._replay_file(home, source, run.cell.task)
            if run.cell.agent == REPLAY
            else None,
        )
        record = execute_run(
            spec_for(run),
            home=home,
            source=source,
            results_dir=self.results / "work",
            timeout=run.timeout_seconds,
            options=options,
        )
        produced = self.results / "work" / run.run_id / "result.json"
        if produced.exists():
            produced.replace(produced.with_name("runner-result.json"))
        if record.status == "harness_error":
            raise InfrastructureError(record.error or record.status_detail)
        return outcome_from_record(record)

    def _replay_file(self, home: DataHome, source: str, task_name: str) -> Path:
        task = self.catalog.task(task_name)
        paths = task_catalog_paths(home, source, "native", task_name)
        present = set(load_catalog_manifest(paths).relations)
        statements = oracle_statements(task, present)
        path = self.results / REPLAY_DIR / f"{task_name}.py"
        atomic_write_text(path, _REPLAY_SCRIPT.format(statements=statements))
        return path
