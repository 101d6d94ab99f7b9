"""The demo's agents: the oracle, a replayed half answer, a known-wrong mutant, and
``react`` when a model endpoint is configured.

They run through the real runner and sandbox like any agent, by the campaign's own run
function. ``replay`` replays a script the demo writes per task (the reference answer with
every other row dropped: :class:`HalfAnswers`), so the report shows a partial answer next
to a perfect one; ``mutant:first`` runs each task's first known-wrong variant of its
reference.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from m4bench.fileio import atomic_write_text
from m4bench.home import DataHome
from m4bench.provision.agent_catalog import load_catalog_manifest
from m4bench.provision.layout import task_catalog_paths
from m4bench.results.campaign_files import PlannedRun
from m4bench.runner.oracle_plan import oracle_statements
from m4bench.tasks.catalog import Catalog

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
class HalfAnswers:
    """The replay script of each demo task (picklable): the reference answer with every
    other row dropped, written under the demo's results folder."""

    results: Path

    def __call__(self, home: DataHome, source: str, run: PlannedRun, catalog: Catalog) -> Path:
        task_name = run.cell.task
        task = catalog.task(task_name)
        paths = task_catalog_paths(home, source, "native", task_name)
        present = set(load_catalog_manifest(paths).relations)
        statements = oracle_statements(task, present)
        path = self.results / REPLAY_DIR / f"{task_name}.py"
        atomic_write_text(path, _REPLAY_SCRIPT.format(statements=statements))
        return path
