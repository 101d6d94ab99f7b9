"""The files a campaign's ``replay`` runs replay, and the identity they give each run.

A campaign names one path for its replay runs (the profile's ``replay`` field, relative
to the profile's file, or ``m4bench campaign run --replay PATH``):

* a file (``.sql``, ``.py`` or ``.sh``): every replay run replays it;
* a folder: each task's run replays ``<task>.sql``, ``<task>.py`` or ``<task>.sh`` in it
  (exactly one of them).

Planning puts each file's digest (and the endpoint, for the agents that reach it) into
its runs' identity (:mod:`m4bench.runner.identity_inputs`), so runs of two files never
share an id, and a resume whose files changed plans other runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from m4bench.errors import M4BenchError
from m4bench.results.campaign_files import PlannedRun
from m4bench.runner.builtin_agents import SCRIPT_RUNNERS
from m4bench.runner.identity_inputs import identified

REPLAY_AGENT = "replay"
REPLAY_SUFFIXES: tuple[str, ...] = (".sql", *SCRIPT_RUNNERS)


def replay_file(replay: Path, task: str) -> Path:
    """The file the replay run of ``task`` replays: ``replay`` itself, or the task's
    file in the folder ``replay``. Raises a user error naming what is missing."""
    if replay.is_file():
        return replay
    if not replay.is_dir():
        raise M4BenchError(
            f"replay {replay}: no such file or folder",
            hint="give the profile's `replay` (relative to the profile) or --replay a "
            "file to replay in every run, or a folder of <task>.sql/.py/.sh files",
        )
    found = [replay / f"{task}{suffix}" for suffix in REPLAY_SUFFIXES]
    present = [path for path in found if path.is_file()]
    if len(present) == 1:
        return present[0]
    names = ", ".join(path.name for path in (present or found))
    problem = "holds several files" if present else "has no file"
    raise M4BenchError(
        f"replay folder {replay} {problem} for task {task} ({names})",
        hint=f"put exactly one of {', '.join(p.name for p in found)} in the folder",
    )


def identify_runs(
    runs: Sequence[PlannedRun], replay: Path | None, endpoint: str | None
) -> list[PlannedRun]:
    """``runs`` with their identity inputs (replay digest, endpoint) set, sorted by id as
    a plan is. A replay run without a ``replay`` path keeps none: the checks before the
    campaign (or its run) say what to give."""
    files: dict[str, Path | None] = {}
    identified_runs: dict[str, PlannedRun] = {}
    for run in runs:
        cell = run.cell
        path: Path | None = None
        if cell.agent == REPLAY_AGENT and replay is not None:
            if cell.task not in files:
                files[cell.task] = replay_file(replay, cell.task)
            path = files[cell.task]
        planned = run.model_copy(update={"cell": identified(cell, endpoint, path)})
        identified_runs.setdefault(planned.run_id, planned)
    return [identified_runs[key] for key in sorted(identified_runs)]
