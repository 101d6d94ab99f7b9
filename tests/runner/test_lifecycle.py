"""Every way an agent can end yields a record with the right status, and is scored."""

from __future__ import annotations

from pathlib import Path

from bwrap_probe import needs_bwrap
from run_bench import Bench

from m4bench.runner import read_result

pytestmark = needs_bwrap

TASK = "mimic-meld-24h"


def script(tmp_path: Path, name: str, body: str) -> Path:
    path = tmp_path / name
    path.write_text(body, encoding="utf-8")
    return path


def oracle_rows(bench: Bench, tmp_path: Path, rows: int) -> str:
    """The first ``rows`` lines of the oracle's own output (a genuinely partial answer)."""
    record = bench.run(tmp_path / "oracle", TASK, "oracle")
    output = tmp_path / "oracle" / record.run_id / record.artifacts["output.csv"].path
    return "".join(output.read_text().splitlines(keepends=True)[: rows + 1])


def test_hung_agent_is_killed_and_its_partial_output_scored(bench: Bench, tmp_path: Path) -> None:
    partial = oracle_rows(bench, tmp_path, 10)
    hung = script(
        tmp_path,
        "hang.sh",
        f"cat > output.csv <<'CSV'\n{partial}CSV\nsleep 600 & sleep 600\n",
    )
    record = bench.run(tmp_path / "r", TASK, "replay", replay_file=hung, timeout=3)
    assert record.status == "timeout"
    assert record.sandbox.timed_out and record.sandbox.killed
    assert record.timings.agent < 3 + 5 + 3
    assert record.score is not None
    assert 0.0 < record.reward < 1.0
    assert record.score.keys.agent_rows == 10


def test_crash_gives_nonzero_exit_and_output_still_scored(bench: Bench, tmp_path: Path) -> None:
    partial = oracle_rows(bench, tmp_path, 5)
    crash = script(tmp_path, "crash.sh", f"cat > output.csv <<'CSV'\n{partial}CSV\nexit 3\n")
    record = bench.run(tmp_path / "r", TASK, "replay", replay_file=crash)
    assert record.status == "nonzero_exit"
    assert record.sandbox.returncode == 3
    assert record.score is not None and record.reward > 0.0


def test_no_output(bench: Bench, tmp_path: Path) -> None:
    quiet = script(tmp_path, "quiet.sh", "echo thinking\n")
    record = bench.run(tmp_path / "r", TASK, "replay", replay_file=quiet)
    assert record.status == "no_output"
    assert record.score is None and record.reward == 0.0 and record.ground_truth is None
    assert read_result(tmp_path / "r" / record.run_id).status == "no_output"


def test_garbage_output_is_scored_zero_with_the_reason(bench: Bench, tmp_path: Path) -> None:
    garbage = script(tmp_path, "garbage.sh", "head -c 3000 /dev/urandom > output.csv\n")
    record = bench.run(tmp_path / "r", TASK, "replay", replay_file=garbage)
    assert record.status == "ok"
    assert record.score is not None
    assert record.reward == 0.0
    assert record.score.failure is not None or record.score.diagnostics


def test_output_link_planted_by_the_agent_is_not_followed(bench: Bench, tmp_path: Path) -> None:
    planted = script(tmp_path, "link.sh", "ln -s /etc/hostname output.csv\n")
    record = bench.run(tmp_path / "r", TASK, "replay", replay_file=planted)
    assert record.status == "no_output"
    assert "output.csv" not in record.artifacts


def test_unknown_task_is_a_recorded_harness_error(bench: Bench, tmp_path: Path) -> None:
    record = bench.run(tmp_path, "mimic-no-such-task", "oracle")
    assert record.status == "harness_error"
    assert record.error and "mimic-no-such-task" in record.error
    assert read_result(tmp_path / record.run_id).status == "harness_error"


def test_attempts_are_numbered_and_the_identity_is_stable(bench: Bench, tmp_path: Path) -> None:
    quiet = script(tmp_path, "quiet.sh", "true\n")
    first = bench.run(tmp_path / "r", TASK, "replay", replay_file=quiet)
    second = bench.run(tmp_path / "r", TASK, "replay", replay_file=quiet)
    assert first.run_id == second.run_id
    assert (first.attempt, second.attempt) == (1, 2)
