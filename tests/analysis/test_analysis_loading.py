from __future__ import annotations

import json
from pathlib import Path

import pytest
from analysis_campaign import grid, record, write_results_dir, write_runs_csv
from result_records import score

from m4bench.analysis import AnalysisSettings, analyze, analyze_runs, load_source
from m4bench.analysis.load_results import load_results_dir
from m4bench.analysis.narrative import integrity_sentence
from m4bench.errors import M4BenchError
from m4bench.results import Cell, PlannedRun, load_runs_csv
from m4bench.results.record import GroundTruthRecord


def test_results_dir_records_map_into_run_rows(tmp_path: Path) -> None:
    runs = load_results_dir(write_results_dir(tmp_path, grid()))
    assert len(runs) == 5 * 2 * 2 * 3
    first = next(r for r in runs if r.run_id == "eicu-gcs_no-skill_native_model-a_t1")
    assert first.reward == pytest.approx(0.48)
    assert first.key_recall == pytest.approx(1.0)  # (125 unique - 25 extra) / 100 rows
    assert first.key_f1 == pytest.approx(2 * 0.8 * 1.0 / 1.8)
    assert first.elapsed_seconds == 110.0 and first.input_tokens == 1000
    assert first.filesystem_canary is True and first.strict_pass is False


def test_unpublishable_runs_are_excluded_and_counted(tmp_path: Path) -> None:
    records = grid()
    bad = record("mimic-sofa-24h", "with-skill", "native", "model-a", 3).model_copy(
        update={"publishable": False, "run_id": "unpublished-run", "reward": 0.0}
    )
    runs = load_results_dir(write_results_dir(tmp_path, [*records, bad]))
    result = analyze_runs(runs, AnalysisSettings(reps=200, permutation_reps=200), "test")
    counts = dict(result.integrity)
    assert counts["Runs loaded"] == 61 and counts["Runs analysed"] == 60
    assert counts["Runs excluded from estimands"] == 1
    assert counts["Publishable flag failures"] == 1
    assert counts["Repeated cell trials"] == 1  # the unpublishable rerun of sofa t3
    # the unpublishable zero reward does not pull the sofa delta down
    sofa = next(d for d in result.task_deltas if d.task == "mimic-sofa-24h")
    assert sofa.delta == pytest.approx(0.10)


def test_tasks_scored_against_two_ground_truths_are_counted(tmp_path: Path) -> None:
    records = []
    for item in grid():
        # A sofa run was scored after the truth was rebuilt.
        rebuilt = item.identity.task == "mimic-sofa-24h" and item.identity.trial == 3
        truth = GroundTruthRecord(
            key="k", sha256="b" * 64 if rebuilt else "a" * 64, rows=3, source_fingerprint="f"
        )
        records.append(item.model_copy(update={"ground_truth": truth}))
    runs = load_results_dir(write_results_dir(tmp_path, records))
    assert {run.truth_sha256 for run in runs} == {"a" * 64, "b" * 64}
    result = analyze_runs(runs, AnalysisSettings(reps=200, permutation_reps=200), "test")
    assert dict(result.integrity)["Tasks scored against several ground truths"] == 1
    assert "tasks scored against several ground truths: 1" in integrity_sentence(result)
    unrecorded = load_results_dir(write_results_dir(tmp_path / "plain", grid()))
    plain = analyze_runs(unrecorded, AnalysisSettings(reps=200, permutation_reps=200), "test")
    assert dict(plain.integrity)["Tasks scored against several ground truths"] == 0


def test_damaged_result_record_names_the_file(tmp_path: Path) -> None:
    write_results_dir(tmp_path, grid()[:2])
    broken = tmp_path / "broken-run" / "result.json"
    broken.parent.mkdir()
    broken.write_text("{not json", encoding="utf-8")
    with pytest.raises(M4BenchError, match=r"broken-run/result\.json"):
        load_results_dir(tmp_path)


def test_record_missing_a_field_names_the_field(tmp_path: Path) -> None:
    path = write_results_dir(tmp_path, grid()[:1]) / grid()[0].run_id / "result.json"
    document = json.loads(path.read_text(encoding="utf-8"))
    del document["identity"]["task"]
    path.write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(M4BenchError, match=r"result\.json: field 'identity\.task'"):
        load_results_dir(tmp_path)


def test_a_record_that_is_no_m4bench_record_is_refused_saying_what_to_pass(
    tmp_path: Path,
) -> None:
    """A result.json of another harness (no format_version) is not guessed at."""
    path = tmp_path / "run-1" / "result.json"
    path.parent.mkdir()
    path.write_text(json.dumps({"task": "t", "test_results": {"reward": 1.0}}), encoding="utf-8")
    with pytest.raises(M4BenchError, match="no format_version") as refused:
        load_results_dir(tmp_path)
    assert "runs CSV" in (refused.value.hint or "")


def test_csv_and_results_dir_give_the_same_rewards(tmp_path: Path) -> None:
    records = grid()
    from_csv = load_runs_csv(write_runs_csv(tmp_path / "runs.csv", records))
    from_dir = load_results_dir(write_results_dir(tmp_path / "results", records))
    assert sorted((r.run_id, r.reward) for r in from_csv) == sorted(
        (r.run_id, r.reward) for r in from_dir
    )


def _runs_csv_with_cell(tmp_path: Path, column: int, text: str) -> Path:
    """Three runs, the second's cell ``column`` (4 trial, 5 reward, 9 key_f1) replaced."""
    path = write_runs_csv(tmp_path / "runs.csv", grid()[:3])
    lines = path.read_text(encoding="utf-8").splitlines()
    cells = lines[2].split(",")
    cells[column] = text
    lines[2] = ",".join(cells)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_csv_bad_value_names_row_and_column(tmp_path: Path) -> None:
    with pytest.raises(M4BenchError, match=r"line 3, column 'reward'"):
        load_runs_csv(_runs_csv_with_cell(tmp_path, 5, "abc"))


@pytest.mark.parametrize(
    ("column", "text", "name"),
    [(5, "1.7", "reward"), (5, "-0.1", "reward"), (9, "1.2", "key_f1"), (4, "1.5", "trial")],
)
def test_csv_impossible_value_names_row_and_column(
    tmp_path: Path, column: int, text: str, name: str
) -> None:
    with pytest.raises(M4BenchError, match=rf"line 3, column '{name}'") as caught:
        load_runs_csv(_runs_csv_with_cell(tmp_path, column, text))
    assert text in caught.value.message


def test_csv_whole_number_written_as_float_is_a_trial(tmp_path: Path) -> None:
    runs = load_runs_csv(_runs_csv_with_cell(tmp_path, 4, "2.0"))
    assert runs[1].trial == 2


def test_csv_missing_column_is_named(tmp_path: Path) -> None:
    path = tmp_path / "runs.csv"
    path.write_text("task,condition,model,trial\nt,c,m,1\n", encoding="utf-8")
    with pytest.raises(M4BenchError, match=r"missing column.*reward"):
        load_runs_csv(path)


def test_unknown_source_says_what_to_pass(tmp_path: Path) -> None:
    with pytest.raises(M4BenchError, match="no such runs CSV or results directory"):
        load_source(tmp_path / "missing.csv")


def test_shipped_release_loads_760_runs() -> None:
    runs, label = load_source("paper-release-v1")
    assert label == "paper-release-v1" and len(runs) == 760
    assert {r.condition for r in runs} == {
        "no-skill",
        "with-skill",
        "with-skill-decoy",
        "with-skill-rawsql",
    }
    assert json.loads(runs[0].model_dump_json())["schema_name"] == "native"


def test_the_score_of_a_record_maps_into_run_rows(tmp_path: Path) -> None:
    scored = score(
        0.75,
        failed_checks=1,
        checks=2,
        precision=0.5,
        truth_rows=10,
        extra_keys=10,
        ordered_columns=("sofa", "renal"),
        nmae=0.1,
    )
    item = record("mimic-sofa-24h", "with-skill", "native", "model-a", 1)
    item = item.model_copy(update={"score": scored, "reward": 0.75})
    (run,) = load_results_dir(write_results_dir(tmp_path, [item]))
    assert run.reward == 0.75 and (run.passed, run.failed, run.errors) == (1, 1, 0)
    assert run.total_tests == 2 and run.strict_pass is False
    assert (run.key_precision, run.key_recall, run.extra_keys) == (0.5, 1.0, 10)
    assert run.agent_unique_keys == 20 and run.key_f1 == pytest.approx(2 / 3)
    assert run.ordered_value_nmae == 0.1 and run.ordered_value_columns == 2


def test_passing_checks_count_zero_failures(tmp_path: Path) -> None:
    item = record("eicu-gcs", "no-skill", "native", "model-a", 1)
    item = item.model_copy(update={"score": score(0.7, failed_checks=0)})
    (run,) = load_results_dir(write_results_dir(tmp_path, [item]))
    assert run.failed == 0 and run.errors == 0 and run.strict_pass is True


def test_campaign_results_count_planned_runs_without_a_result(tmp_path: Path) -> None:
    planned = [
        PlannedRun(
            cell=item.identity.cell(),
            trial=item.identity.trial,
            timeout_seconds=60,
            provider="local",
            prior_seconds=60,
        )
        for item in grid()
    ]
    records = [
        item.model_copy(update={"run_id": run.run_id})
        for item, run in zip(grid(), planned, strict=True)
    ]
    assert all(isinstance(run.cell, Cell) for run in planned)
    results = tmp_path / "results"
    write_results_dir(results / "runs", records[:-1])
    manifest = {
        "profile": "tiny",
        "plan_sha256": "0" * 64,
        "runs": [run.model_dump(mode="json", by_alias=True) for run in planned],
    }
    (results / "campaign.json").write_text(json.dumps(manifest), encoding="utf-8")
    out = tmp_path / "out"
    result = analyze(results, out, AnalysisSettings(reps=200, permutation_reps=200))
    counts = dict(result.integrity)
    assert (counts["Runs planned"], counts["Planned runs without a result"]) == (60, 1)
    page = (out / "report.html").read_text(encoding="utf-8")
    assert "59 of 59 loaded runs (60 planned, 1 without a result)" in page
    assert "planned runs without a result: 1" in page


def test_results_without_a_campaign_have_no_plan_rows(tmp_path: Path) -> None:
    write_results_dir(tmp_path / "results", grid())
    result = analyze(tmp_path / "results", tmp_path / "out", AnalysisSettings(reps=200))
    assert "Runs planned" not in dict(result.integrity)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("t,no-skill,m,1,0.5\nt,with-skill\n", "line 3: 2 cells where the header has 5"),
        ("t,no-skill,m,1,0.5,extra\n", "line 2: 6 cells where the header has 5"),
        ('t,no-skill,m,1,0.5\n"t,with-skill,m,1,0.5\nt,no-skill,m,2,0.5\n', "line 4: 1 cells"),
        ("t,no-skill,m,1," + "9" * 200_000 + "\n", "line 2: not readable as CSV"),
    ],
)
def test_csv_malformed_rows_are_errors_naming_the_line(
    tmp_path: Path, body: str, message: str
) -> None:
    path = tmp_path / "runs.csv"
    path.write_text("task,condition,model,trial,reward\n" + body, encoding="utf-8")
    with pytest.raises(M4BenchError, match=message):
        load_runs_csv(path)


def test_csv_not_utf8_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "runs.csv"
    path.write_bytes(b"task,condition,model,trial,reward\nt\xff,c,m,1,0.5\n")
    with pytest.raises(M4BenchError, match="not UTF-8 text"):
        load_runs_csv(path)
