"""The demo's agents: the oracle, a replayed half answer, a known-wrong mutant, and
``react`` when a model endpoint is configured.

They run through the real runner and sandbox like any agent, by the campaign's own run
function. ``replay`` replays a script the demo writes per task before the campaign is
planned (the reference answer with every other row dropped: :func:`write_half_answers`),
as any campaign's folder of ``<task>.py`` replay files, so the report shows a partial
answer next to a perfect one; ``mutant:first`` runs each task's first known-wrong
variant of its reference.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from m4bench.fileio import atomic_write_text
from m4bench.home import DataHome
from m4bench.provision.agent_catalog import load_catalog_manifest
from m4bench.provision.layout import task_catalog_paths
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


def write_half_answers(
    home: DataHome,
    sources: Mapping[str, str],
    tasks: Iterable[str],
    catalog: Catalog,
    folder: Path,
) -> Path:
    """Write ``<task>.py`` for each task into ``folder``: the reference answer with every
    other row dropped, over the task's native catalog on its dataset's source. The
    script is the same for the same data, so a later demo plans the same run ids."""
    for task_name in tasks:
        task = catalog.task(task_name)
        paths = task_catalog_paths(home, sources[task.card.dataset], "native", task_name)
        present = set(load_catalog_manifest(paths).relations)
        statements = oracle_statements(task, present)
        path = folder / f"{task_name}.py"
        atomic_write_text(path, _REPLAY_SCRIPT.format(statements=statements))
    return folder
