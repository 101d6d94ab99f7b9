"""A results folder read for the viewer: each run's record and what its artifacts hold.

Reads go through :mod:`m4bench.results` (records, the folder's layout) and are bounded:
a file past its limit is read in part and the page says so. An artifact path that
leads outside the run's folder is not read. A record that cannot be read is listed
with its error instead of stopping the view.
"""

from __future__ import annotations

import csv
import glob
import io
import json
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
from atif import Trajectory
from pydantic import ValidationError

from m4bench.errors import M4BenchError
from m4bench.fileio import sha256_text
from m4bench.results import ResultRecord, artifact_root, read_result, result_files
from m4bench.results.layout import (
    DIFF_FILE,
    INSTRUCTION_FILE,
    OUTPUT_FILE,
    STDERR_FILE,
    TRAJECTORY_FILE,
    is_campaign_folder,
)
from m4bench.results.record import SkillRecord
from m4bench.viewer.disagreements import Disagreements, from_diff, from_score

TEXT_READ_LIMIT = 1 << 20
"""Bytes read of a text artifact (instruction, stderr, a skill)."""
TRAJECTORY_READ_LIMIT = 32 << 20
"""Bytes of a trajectory the viewer parses; a larger one is listed, not shown."""
OUTPUT_PREVIEW_ROWS = 20
SKILL_FILE = "SKILL.md"


@dataclass(frozen=True)
class Excerpt:
    """Part of a file: its text, its size in bytes, and whether it was cut."""

    text: str
    size: int
    cut: bool


@dataclass
class TrajectoryView:
    trajectory: Trajectory | None = None
    problem: str = ""
    raw: Excerpt | None = None


@dataclass
class SkillView:
    record: SkillRecord
    text: str | None = None


@dataclass
class RunView:
    """One run as its page shows it."""

    record: ResultRecord
    record_path: Path
    root: Path
    instruction: Excerpt | None = None
    trajectory: TrajectoryView = field(default_factory=TrajectoryView)
    disagreements: Disagreements | None = None
    output_head: list[list[str]] = field(default_factory=list)
    stderr_tail: Excerpt | None = None
    skills: list[SkillView] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Unreadable:
    path: Path
    error: str


@dataclass
class Collection:
    results: Path
    runs: list[RunView]
    unreadable: list[Unreadable]


def read_excerpt(path: Path, limit: int = TEXT_READ_LIMIT, *, tail: bool = False) -> Excerpt:
    """The first (or last) ``limit`` bytes of ``path`` as text (undecodable bytes shown
    as replacement characters)."""
    size = path.stat().st_size
    with path.open("rb") as handle:
        if tail and size > limit:
            handle.seek(size - limit)
        data = handle.read(limit)
    return Excerpt(data.decode("utf-8", errors="replace"), size, size > limit)


def collect(results: Path, with_truth: bool) -> Collection:
    """Every run under ``results`` (a campaign's folder, a folder of runs, or one run's
    folder), each with its artifacts read."""
    if not results.is_dir():
        raise M4BenchError(
            f"{results}: no such results folder",
            hint="pass the folder given to `m4bench run --results` or `m4bench campaign run`",
        )
    files = [results / "result.json"] if (results / "result.json").is_file() else []
    files = files or result_files(results)
    runs: list[RunView] = []
    unreadable: list[Unreadable] = []
    for path in files:
        try:
            record = read_result(path)
        except (M4BenchError, OSError) as exc:
            unreadable.append(Unreadable(path, str(exc)))
            continue
        root = artifact_root(results, record.run_id) if is_campaign_folder(results) else path.parent
        runs.append(read_run(record, path, root, with_truth))
    if not runs and not unreadable:
        raise M4BenchError(
            f"{results}: no result records (no result.json below it)",
            hint="point at a campaign's results folder, or the folder `m4bench run "
            "--results` wrote; runs that have not finished have no record yet",
        )
    return Collection(results, runs, unreadable)


def read_run(record: ResultRecord, record_path: Path, root: Path, with_truth: bool) -> RunView:
    """A run and its artifacts, each read within its limit."""
    view = RunView(record, record_path, root)
    instruction = _artifact(view, INSTRUCTION_FILE)
    if instruction is not None:
        view.instruction = read_excerpt(instruction)
    trajectory = _artifact(view, TRAJECTORY_FILE)
    if trajectory is not None:
        view.trajectory = read_trajectory(trajectory)
    stderr = _artifact(view, STDERR_FILE)
    if stderr is not None and stderr.stat().st_size:
        view.stderr_tail = read_excerpt(stderr, 16_384, tail=True)
    output = _artifact(view, OUTPUT_FILE)
    if output is not None:
        view.output_head = output_head(output)
    view.disagreements = _disagreements(view, with_truth)
    view.skills = [SkillView(skill, _skill_text(view, skill)) for skill in record.skills]
    return view


def _artifact(view: RunView, name: str) -> Path | None:
    """The kept file ``name`` of the run, when it exists inside the run's folder."""
    artifact = view.record.artifacts.get(name)
    if artifact is None:
        return None
    path = view.root / artifact.path
    try:
        inside = path.resolve().is_relative_to(view.root.resolve())
    except (OSError, RuntimeError):
        inside = False
    if not inside:
        view.notes.append(
            f"{name}: its path {artifact.path!r} leads outside the run's folder; not read"
        )
        return None
    if not path.is_file():
        view.notes.append(f"{name}: listed in the record but not found at {path}")
        return None
    return path


def read_trajectory(path: Path) -> TrajectoryView:
    """The ATIF trajectory in ``path``; when it cannot be read as one, why, and its text."""
    size = path.stat().st_size
    if size > TRAJECTORY_READ_LIMIT:
        return TrajectoryView(
            problem=f"{path.name} is {size:,} bytes, past the {TRAJECTORY_READ_LIMIT:,} the "
            "viewer reads; open the file itself",
            raw=read_excerpt(path, 64_000),
        )
    try:
        data = json.loads(path.read_bytes())
        return TrajectoryView(Trajectory.model_validate(data))
    except (ValueError, ValidationError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        return TrajectoryView(
            problem=f"{path.name} is not a valid ATIF trajectory: {first}",
            raw=read_excerpt(path, 64_000),
        )


def output_head(path: Path, rows: int = OUTPUT_PREVIEW_ROWS) -> list[list[str]]:
    """The header and first data rows of the agent's CSV (as text, read in part)."""
    excerpt = read_excerpt(path, 256_000)
    lines = excerpt.text.splitlines()[: rows + 1]
    return [list(row) for row in csv.reader(io.StringIO("\n".join(lines)))]


def _disagreements(view: RunView, with_truth: bool) -> Disagreements | None:
    diff = _artifact(view, DIFF_FILE)
    if diff is not None:
        try:
            return from_diff(diff, with_truth)
        except (duckdb.Error, M4BenchError) as exc:
            view.notes.append(f"{DIFF_FILE}: not read ({str(exc).splitlines()[0]})")
    score = view.record.score
    return from_score(score, with_truth) if score is not None else None


def _skill_text(view: RunView, skill: SkillRecord) -> str | None:
    """The skill's text as the agent got it, when the run kept its workdir and a file
    there has the recorded digest."""
    workdirs = [p for p in view.root.glob("attempt-*/workdir") if p.is_dir()]
    for workdir in workdirs:
        for candidate in workdir.glob(f"**/{glob.escape(skill.folder)}/{SKILL_FILE}"):
            if candidate.is_symlink() or not candidate.is_file():
                continue  # the agent's workdir: no links out, no pipes that never end
            text = read_excerpt(candidate).text
            if sha256_text(text) == skill.sha256:
                return text
    return None
