"""Trajectories are packaged sanitized and stay valid ATIF; scores-only drops what tools
returned."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from atif_check import check_trajectory
from evidence_helpers import CHARTTIME, EMAIL, SECRET, STAYS, SUBJECTS, Planted, build_campaign

from m4bench.agents.atif import (
    Agent,
    FinalMetrics,
    Observation,
    ObservationResult,
    Step,
    ToolCall,
    Trajectory,
    TrajectoryContext,
    assemble,
    write_trajectory,
)
from m4bench.evidence import PackageOptions, package_results, verify_package
from m4bench.evidence.archive import read_archive
from m4bench.evidence.redact import Redactor
from m4bench.evidence.trajectories import NOT_ATIF, sanitize_trajectory
from m4bench.fileio import sha256_file, write_model
from m4bench.home import DataHome
from m4bench.results import read_result
from m4bench.results.layout import OUTPUT_FILE, RESULT_FILE, TRAJECTORY_FILE, artifact_root
from m4bench.results.record import Artifact

STARTED = datetime(2026, 5, 2, 10, 0, tzinfo=UTC)


def planted_trajectory(home: Path) -> Trajectory:
    """A trajectory with a secret, a home path, clock times, ids and a table of rows."""
    table = "\n".join(
        f"{s} | {t} | {CHARTTIME} | 97.5" for s, t in zip(SUBJECTS, STAYS, strict=True)
    )
    call = ToolCall(
        tool_call_id="c1",
        function_name="run_sql",
        arguments={"query": f"SELECT * FROM stays WHERE stay_id = {STAYS[1]}", "id": 30000002},
    )
    rows = ObservationResult(
        source_call_id="c1", content=f"subject_id | stay_id | t | temp\n{table}"
    )
    step = Step(
        step_id=1,
        timestamp=(STARTED + timedelta(seconds=3.5)).isoformat(),
        source="agent",
        message=f"Using key {SECRET}; contact {EMAIL}; reading {home}/notes.txt",
        reasoning_content=f"stay {STAYS[0]} looks odd at {CHARTTIME}",
        tool_calls=[call],
        observation=Observation(results=[rows]),
    )
    context = TrajectoryContext(
        started_at=STARTED, instruction=f"Your files are in {home}/work.", session_id="run-1"
    )
    agent = Agent(name="claude-code", version="2.1.328", model_name="claude-sonnet-4-5")
    return assemble([step], agent=agent, context=context, totals=FinalMetrics())


def add_trajectories(results: Path, write: Callable[[Path], object]) -> None:
    """Give every recorded run a trajectory file (``write(path)``) and its artifact entry."""
    for path in sorted(results.glob(f"runs/*/{RESULT_FILE}")):
        record = read_result(path)
        attempt = record.artifacts[OUTPUT_FILE].path.split("/")[0]
        relative = f"{attempt}/{TRAJECTORY_FILE}"
        target = artifact_root(results, record.run_id) / relative
        write(target)
        entry = Artifact(path=relative, sha256=sha256_file(target), bytes=target.stat().st_size)
        artifacts = {**record.artifacts, TRAJECTORY_FILE: entry}
        write_model(path, record.model_copy(update={"artifacts": artifacts}))


@pytest.fixture
def campaign(tmp_path: Path) -> tuple[Path, Planted, DataHome]:
    home = DataHome(tmp_path / "home")
    results = tmp_path / "results"
    planted = build_campaign(results, home.root)
    add_trajectories(results, lambda path: write_trajectory(path, planted_trajectory(home.root)))
    return results, planted, home


def test_scores_only_trajectories_are_valid_atif_without_rows_or_planted_values(
    tmp_path: Path, campaign: tuple[Path, Planted, DataHome]
) -> None:
    results, planted, home = campaign
    out = tmp_path / "pkg.tar.zst"
    result = package_results(results, out, PackageOptions(home=home))
    members = read_archive(out)
    packaged = [name for name in members if name.endswith(TRAJECTORY_FILE)]
    assert len(packaged) == 2
    for name in packaged:
        text = members[name].decode("utf-8")
        for value in [*planted.secrets, *planted.identifiers, *planted.paths, CHARTTIME, "2026-"]:
            assert value not in text, value
        trajectory = check_trajectory(text)
        user, agent = trajectory.steps
        assert (user.timestamp, agent.timestamp) == (
            "1970-01-01T00:00:00.000Z",
            "1970-01-01T00:00:03.500Z",
        )
        assert agent.observation is not None
        [result_] = agent.observation.results
        assert result_.source_call_id == "c1"
        assert str(result_.content).startswith("[observation removed: ")
        assert agent.tool_calls is not None
        assert str(agent.tool_calls[0].arguments["removed"]).startswith("[arguments removed: ")
        assert trajectory.agent.version == "2.1.328"
    actions = {a.path: a for a in result.report.files}
    assert "structure only: observation contents, messages" in actions[packaged[0]].action
    assert actions[packaged[0]].redactions["observation_removed"] == 1
    assert verify_package(out).passed


def test_with_rows_allowed_observations_are_redacted_not_removed(tmp_path: Path) -> None:
    home = tmp_path / "home"
    counts: Counter[str] = Counter()
    redactor = Redactor(literals=[str(home)], identifiers=frozenset(SUBJECTS + STAYS))
    clean = sanitize_trajectory(planted_trajectory(home), redactor, counts, rows_allowed=True)
    text = check_trajectory(clean.model_dump_json(exclude_none=True)).model_dump_json()
    assert "[data block removed: 4 lines" in text and "subject_id" not in text
    assert not any(value in text for value in [SECRET, EMAIL, str(home), *SUBJECTS, *STAYS])


def test_a_trajectory_of_an_earlier_format_is_skipped_with_the_reason(
    tmp_path: Path, campaign: tuple[Path, Planted, DataHome]
) -> None:
    results, _, home = campaign
    old = {"schema_version": "ATIF-v1.6", "agent": {"name": "oracle", "version": None},
           "steps": [], "final_metrics": {}}  # fmt: skip
    add_trajectories(results, lambda path: path.write_text(json.dumps(old)))
    result = package_results(results, tmp_path / "pkg.tar.zst", PackageOptions(home=home))
    reasons = {s.source.rsplit("/", 1)[-1]: s.reason for s in result.report.skipped}
    assert reasons[TRAJECTORY_FILE] == NOT_ATIF
    assert not any(name.endswith(TRAJECTORY_FILE) for name in read_archive(result.path))
