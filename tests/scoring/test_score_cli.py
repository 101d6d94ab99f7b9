"""``m4bench score --spec --truth --output``: options reach the score, bad ones are usage
errors naming the option."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from scoring_helpers import OutputMaker, TruthMaker, spec_for
from typer.testing import CliRunner

from m4bench.cli import app

runner = CliRunner()

TRUTH = (
    "SELECT * FROM (VALUES (1, 10.0, 'a'), (2, 20.0, 'b'), (3, 30.0, 'c'), (4, 40.0, 'd')) "
    "v(stay_id, rate, label)"
)
# Row 2 says NA where the truth has 20.0; row 3 is off by 1.
OUTPUT = "stay_id,rate,label\n1,10.0,a\n2,NA,b\n3,31.0,c\n4,40.0,d\n"


@pytest.fixture
def inputs(tmp_path: Path, make_truth: TruthMaker, make_output: OutputMaker) -> list[str]:
    spec = tmp_path / "spec.json"
    spec.write_text(spec_for(["stay_id"], ["rate", "label"]).model_dump_json())
    truth, output = make_truth(TRUTH), make_output(OUTPUT)
    return ["score", "--spec", str(spec), "--truth", str(truth), "--output", str(output)]


def _json(args: list[str]) -> dict[str, object]:
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    parsed: dict[str, object] = json.loads(result.output)
    return parsed


def _column(score: dict[str, object], name: str) -> dict[str, object]:
    columns = score["columns"]
    assert isinstance(columns, list)
    found: dict[str, object] = next(column for column in columns if column["column"] == name)
    return found


def test_summary_names_the_counts_and_the_failed_checks(inputs: list[str]) -> None:
    result = runner.invoke(app, inputs, env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "not a strict pass" in result.output
    assert "null tokens: empty" in result.output
    assert "precision 1.0000 recall 1.0000" in result.output
    assert "fail score_accuracy[rate]" in result.output
    assert "pass output_exists\n" in result.output
    # rate: rows 1 and 4 exact, row 3 off by 1 of a 30 range, row 2 unreadable (error 1).
    assert "ordered nMAE over 1 column: matched rows 0.2583, all truth rows 0.2583" in (
        result.output
    )
    assert "rate at stay_id=2: truth 20.0, agent NA (not readable as the truth's type)" in (
        result.output
    )
    assert "rate at stay_id=3: truth 30.0, agent 31.0 (outside the tolerance)" in result.output


def test_summary_shows_missing_and_extra_keys(
    tmp_path: Path, make_truth: TruthMaker, make_output: OutputMaker
) -> None:
    spec = tmp_path / "spec.json"
    spec.write_text(spec_for(["stay_id"], ["rate", "label"]).model_dump_json())
    output = make_output('stay_id,rate,label\n1,10.0,a\n2,20.0,b\n9,1.0,z\n"x\ny",1,z\n')
    args = ["score", "--spec", str(spec), "--truth", str(make_truth(TRUTH))]
    result = runner.invoke(app, [*args, "--output", str(output)], env={"COLUMNS": "200"})
    assert "  missing keys: stay_id=3; stay_id=4\n" in result.output
    assert "  extra keys: stay_id=9; stay_id='x\\ny'\n" in result.output
    quiet = runner.invoke(app, [*args, "--output", str(output), "--sample-size", "0"])
    assert "first disagreements" not in quiet.output


def test_null_tokens_option_decides_how_na_reads(inputs: list[str]) -> None:
    paper = _json(inputs)
    extended = _json([*inputs, "--null-tokens", "extended"])
    assert paper["null_tokens"] == "empty" and extended["null_tokens"] == "extended"
    # Under the paper's rule NA does not cast (a wrong value); under the extended rule
    # it is null against 20.0: still wrong, but no longer uncastable.
    assert _column(paper, "rate")["match_rate"] == _column(extended, "rate")["match_rate"] == 0.5
    assert (_column(paper, "rate")["uncastable"], _column(extended, "rate")["uncastable"]) == (1, 0)


def test_resource_options_are_used_and_recorded(inputs: list[str]) -> None:
    score = _json(
        [
            *inputs,
            *("--memory-limit-mb", "256", "--threads", "1", "--time-limit", "30"),
            *("--max-output-mb", "1", "--sample-size", "0"),
        ]
    )
    assert score["options"] == {
        "null_tokens": "empty",
        "ties": "admit",
        "max_output_bytes": 1024**2,
        "max_columns": 1000,
        "max_line_bytes": 1024**2,
        "memory_limit_mb": 256,
        "threads": 1,
        "time_limit_seconds": 30.0,
        "mismatch_sample_size": 0,
    }
    assert _column(score, "rate")["mismatch_sample"] == []
    assert score["failure"] is None and _column(score, "rate")["match_rate"] == 0.5
    default_sample = _column(_json(inputs), "rate")["mismatch_sample"]
    assert isinstance(default_sample, list) and len(default_sample) == 2


def test_max_output_mb_refuses_a_larger_output(inputs: list[str]) -> None:
    output = Path(inputs[-1])
    rows = "".join(f"{index},1.0,x\n" for index in range(5, 120_000))
    output.write_text(OUTPUT + rows)
    assert output.stat().st_size > 1024**2
    score = _json([*inputs, "--max-output-mb", "1"])
    assert score["failure"] == "output_too_large" and score["reward"] == 0.0
    assert _json(inputs)["failure"] is None


def test_diff_option_writes_the_problem_rows(inputs: list[str], tmp_path: Path) -> None:
    diff = tmp_path / "diff.parquet"
    _json([*inputs, "--diff", str(diff)])
    rows = pq.read_table(diff).to_pylist()
    assert sorted((row["status"], row["agent_row"]) for row in rows) == [
        ("mismatch", 2),
        ("mismatch", 3),
    ]


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("--memory-limit-mb", "10"),
        ("--threads", "0"),
        ("--time-limit", "0"),
        ("--max-output-mb", "0"),
        ("--sample-size", "101"),
        ("--null-tokens", "sometimes"),
    ],
)
def test_an_option_out_of_range_is_a_usage_error(
    inputs: list[str], option: str, value: str
) -> None:
    result = runner.invoke(app, [*inputs, option, value], env={"COLUMNS": "200"})
    assert result.exit_code == 2
    assert f"Invalid value for {option}" in result.output


def test_spec_and_truth_are_both_needed_without_a_task(inputs: list[str]) -> None:
    result = runner.invoke(app, inputs[:3] + inputs[5:], env={"COLUMNS": "200"})
    assert result.exit_code == 2
    assert "give --task, or both --spec and --truth" in result.output


def test_a_mistyped_output_path_is_a_usage_error(inputs: list[str], tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.csv"
    result = runner.invoke(app, [*inputs[:-1], str(missing)], env={"COLUMNS": "200"})
    assert result.exit_code == 2
    assert "Invalid value for --output" in result.output and "no such file" in result.output
