"""``m4bench run``: two replay files are two runs; a complete record is never replaced
(an incomplete one is); the summary says why an output scored what it did."""

from __future__ import annotations

from pathlib import Path

from run_bench import SOURCE, Bench
from typer.testing import CliRunner

from m4bench.cli import app
from m4bench.results.layout import RunFolder
from m4bench.runner import RunOptions, RunSpec, execute_run, read_result
from m4bench.runner.identity_inputs import identified

TASK = "mimic-meld-24h"
RIGHT = "SELECT subject_id, hadm_id, stay_id, meld FROM mimiciv_derived.meld"
NO_MELD = "SELECT subject_id, hadm_id, stay_id FROM mimiciv_icu.icustays"
CONSTANT = "SELECT subject_id, hadm_id, stay_id, 6.0 AS meld FROM mimiciv_icu.icustays"


def _run(bench: Bench, results: Path, replay: Path, *more: str) -> tuple[int, str]:
    args = ["run", "--task", TASK, "--agent", "replay", "--replay", str(replay)]
    places = ["--source", SOURCE, "--home", str(bench.home.root), "--results", str(results)]
    result = CliRunner().invoke(
        app, [*args, *places, "--sandbox", "none", *more], env={"COLUMNS": "240"}
    )
    return result.exit_code, result.output


def _sql(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _oracle_sql(bench: Bench, tmp_path: Path) -> Path:
    """The reference answer as a replay file, from an oracle run's output."""
    oracle = bench.run(tmp_path / "oracle", TASK, "oracle", sandbox="none")
    output = tmp_path / "oracle" / oracle.run_id / oracle.artifacts["output.csv"].path
    return _sql(tmp_path, "right.sql", f"SELECT * FROM read_csv('{output}', header = true)")


def test_two_replay_files_are_two_runs_and_a_complete_record_stays(
    bench: Bench, tmp_path: Path
) -> None:
    right = _oracle_sql(bench, tmp_path)
    wrong = _sql(tmp_path, "wrong.sql", CONSTANT)
    results = tmp_path / "results"
    assert _run(bench, results, right)[0] == 0
    assert _run(bench, results, wrong)[0] == 0
    by_file = {
        path: identified(RunSpec(task=TASK, agent="replay"), None, path).run_id
        for path in (right, wrong)
    }
    assert len(set(by_file.values())) == 2
    rewards = {path: read_result(results / run).reward for path, run in by_file.items()}
    assert rewards[right] == 1.0 and rewards[wrong] < 1.0, "the second kept the first's"
    # The same file again: the same run, a second attempt; the first's record stays.
    code, output = _run(bench, results, right)
    assert code == 0, output
    folder = RunFolder(results / by_file[right])
    assert read_result(folder.result).attempt == 1
    assert read_result(folder.attempt_result(2)).attempt == 2
    assert "the run's record stays the earlier one (attempt 1, status ok" in output
    assert f"record {folder.attempt_result(2)}" in output


def test_a_harness_error_never_replaces_a_complete_record_but_is_replaced(
    bench: Bench, tmp_path: Path
) -> None:
    sql = _sql(tmp_path, "wrong.sql", CONSTANT)
    spec = identified(RunSpec(task=TASK, agent="replay"), None, sql)
    options = RunOptions(sandbox="none", replay_file=sql, catalog=bench.catalog)
    results = tmp_path / "results"
    folder = RunFolder(results / spec.run_id)

    def attempt(source: str) -> str:
        run = execute_run(
            spec, home=bench.home, source=source, results_dir=results, options=options
        )
        return run.status

    assert attempt("no-such-source") == "harness_error"
    assert read_result(folder.result).status == "harness_error"
    assert attempt(SOURCE) == "ok"
    assert read_result(folder.result).attempt == 2, "an incomplete record is replaced"
    assert attempt("no-such-source") == "harness_error"
    kept = read_result(folder.result)
    assert (kept.attempt, kept.status) == (2, "ok"), "a complete record is never replaced"
    assert read_result(folder.attempt_result(3)).status == "harness_error"
    # A file changed since the run was identified is a harness error of that run.
    sql.write_text(NO_MELD, encoding="utf-8")
    assert attempt(SOURCE) == "harness_error"
    assert "replay_sha256" in (read_result(folder.attempt_result(4)).error or "")


def test_the_summary_names_the_failed_checks_and_first_disagreements(
    bench: Bench, tmp_path: Path
) -> None:
    code, output = _run(bench, tmp_path / "r", _sql(tmp_path, "no-meld.sql", NO_MELD))
    assert code == 0, output
    assert "status ok" in output and "reward 0.0000" in output
    failed = output.split("failed checks:\n")[1].splitlines()
    assert failed[0] == "  fail has_required_columns: missing: ['meld']"
    assert all(line.startswith("  fail ") for line in failed if line.startswith("  "))
    code, output = _run(bench, tmp_path / "r", _sql(tmp_path, "constant.sql", CONSTANT))
    assert code == 0, output
    failed = output.split("failed checks:\n")[1].split("first disagreements:\n")[0]
    assert "fail score_accuracy[meld]: match rate" in failed
    assert "has_required_columns" not in failed, "only the failed checks"
    shown = output.split("first disagreements:\n")[1].splitlines()
    assert shown[0].startswith("  meld at stay_id=") and "truth " in shown[0]
    assert shown[0].endswith("agent 6.0 (outside the tolerance)")
