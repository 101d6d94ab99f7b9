"""``m4bench score`` refuses what it cannot do right, in one line with exit code 2, before
anything is written: a --diff over an input or a foreign file, a spec naming a column
twice, a limit out of range (inf, nan, huge), a truth that is neither Parquet nor CSV,
--task mixed with --spec/--truth."""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from console_entry import run_main
from scoring_helpers import OutputMaker, TruthMaker, spec_for

from m4bench.errors import M4BenchError
from m4bench.scoring import ScoreOptions, Scorer, score_output

TRUTH = (
    "SELECT * FROM (VALUES (1, 10.0, 'a'), (2, 20.0, 'b'), (3, 30.0, 'c')) v(stay_id, rate, label)"
)
OUTPUT = "stay_id,rate,label\n1,10.0,a\n2,NA,b\n3,31.0,c\n"
SPEC = {
    "key_columns": ["stay_id"],
    "value_columns": ["rate", "label"],
    "required_columns": ["stay_id", "rate", "label"],
    "scored_columns": ["rate", "label"],
}


class Files:
    def __init__(self, spec: Path, truth: Path, output: Path) -> None:
        self.spec, self.truth, self.output = spec, truth, output

    def args(self, **replace: Path) -> list[str]:
        paths = {"spec": self.spec, "truth": self.truth, "output": self.output, **replace}
        return [arg for name, path in paths.items() for arg in (f"--{name}", str(path))]


@pytest.fixture
def files(tmp_path: Path, make_truth: TruthMaker, make_output: OutputMaker) -> Files:
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps(SPEC), encoding="utf-8")
    return Files(spec, make_truth(TRUTH), make_output(OUTPUT))


def _cli(
    args: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> tuple[int, str]:
    """Run the installed entry point as a user would: exit code and everything printed."""
    ran = run_main(["score", *args], monkeypatch, capsys)
    return ran.code, ran.out + ran.err


# --diff --------------------------------------------------------------------------------


@pytest.mark.parametrize("target", ["output", "truth", "spec"])
def test_diff_naming_an_input_is_refused_and_the_input_kept(
    files: Files, target: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path: Path = getattr(files, target)
    before = path.read_bytes()
    # Spelled differently from the input's own option: the paths are compared resolved.
    (path.parent / "sub").mkdir()
    spelled = path.parent / "sub" / ".." / path.name
    code, printed = _cli([*files.args(), "--diff", str(spelled)], monkeypatch, capsys)
    assert code == 2
    assert f"the diff would replace the --{target} file" in printed
    assert "Traceback" not in printed
    assert path.read_bytes() == before
    assert sorted(p.name for p in path.parent.iterdir() if p.name.startswith(".")) == []


def test_diff_over_a_hard_link_to_the_output_is_refused(
    files: Files, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    link = files.output.parent / "link.csv"
    os.link(files.output, link)
    code, printed = _cli([*files.args(), "--diff", str(link)], monkeypatch, capsys)
    assert code == 2 and "would replace the --output file" in printed
    assert link.read_text(encoding="utf-8") == OUTPUT


@pytest.mark.parametrize("existing", ["notes.csv", "other-truth.parquet", "empty.parquet"])
def test_diff_over_an_existing_file_that_is_not_a_diff_is_refused(
    files: Files,
    existing: str,
    make_truth: TruthMaker,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    target = files.output.parent / existing
    if existing == "notes.csv":
        target.write_text("keep me\n", encoding="utf-8")
    elif existing == "empty.parquet":
        target.write_bytes(b"")
    else:  # a Parquet file of another kind, say the truth of another task
        make_truth("SELECT 1 AS status_code, 2 AS agent").replace(target)
    before = target.read_bytes()
    code, printed = _cli([*files.args(), "--diff", str(target)], monkeypatch, capsys)
    assert code == 2
    assert f"{target}: exists and is not a row-level diff the scorer wrote" in printed
    assert "give --diff a new path" in printed
    assert target.read_bytes() == before


def test_diff_over_a_symbolic_link_is_refused(
    files: Files, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    elsewhere = files.output.parent / "elsewhere.txt"
    elsewhere.write_text("x", encoding="utf-8")
    link = files.output.parent / "diff.parquet"
    link.symlink_to(elsewhere)
    code, printed = _cli([*files.args(), "--diff", str(link)], monkeypatch, capsys)
    assert code == 2 and "is a symbolic link" in printed
    assert link.is_symlink()


def test_an_earlier_diff_is_replaced(
    files: Files, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    diff = files.output.parent / "diff.parquet"
    assert _cli([*files.args(), "--diff", str(diff), "--json"], monkeypatch, capsys)[0] == 0
    assert pq.read_table(diff).num_rows == 2
    files.output.write_text(OUTPUT.replace("NA", "20.0"), encoding="utf-8")
    assert _cli([*files.args(), "--diff", str(diff), "--json"], monkeypatch, capsys)[0] == 0
    assert [row["agent_row"] for row in pq.read_table(diff).to_pylist()] == [3]


def test_library_does_not_write_the_diff_over_its_output(files: Files) -> None:
    spec = spec_for(["stay_id"], ["rate", "label"])
    score = score_output(spec, files.truth, files.output, diff_path=files.output)
    assert files.output.read_text(encoding="utf-8") == OUTPUT
    assert score.columns[0].matched == 1  # scored all the same
    assert any(
        "row-level diff not written" in note and "output" in note for note in score.diagnostics
    )


# repeated names in a spec ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("field", "names", "repeated"),
    [
        ("key_columns", ["stay_id", "stay_id"], "stay_id"),
        ("scored_columns", ["rate", "label", "rate"], "rate"),
        ("value_columns", ["label", "rate", "label"], "label"),
        ("required_columns", ["stay_id", "rate", "label", "rate"], "rate"),
        ("ordered_columns", ["rate", "rate"], "rate"),
    ],
)
def test_a_spec_repeating_a_name_is_refused(
    files: Files,
    field: str,
    names: list[str],
    repeated: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    files.spec.write_text(json.dumps({**SPEC, field: names}), encoding="utf-8")
    code, printed = _cli(files.args(), monkeypatch, capsys)
    assert code == 2
    assert f"{files.spec}: invalid evaluation spec at '{field}': '{repeated}' repeated" in printed


def test_a_toml_evaluation_table_repeating_a_key_is_refused(
    files: Files, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    toml = files.spec.with_suffix(".toml")
    toml.write_text(
        '[evaluation]\nkey_columns = ["stay_id", "stay_id"]\nvalue_columns = ["rate"]\n'
        'required_columns = ["stay_id", "rate"]\nscored_columns = ["rate"]\n',
        encoding="utf-8",
    )
    code, printed = _cli(files.args(spec=toml), monkeypatch, capsys)
    assert code == 2
    assert f"{toml}: invalid evaluation spec at 'key_columns': 'stay_id' repeated" in printed


def test_the_library_refuses_a_spec_repeating_a_key(files: Files) -> None:
    spec = spec_for(["stay_id", "stay_id"], ["rate"])
    with pytest.raises(M4BenchError, match="'key_columns': 'stay_id' repeated"):
        Scorer(spec, files.truth)


# numeric options -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("option", "value", "allowed"),
    [
        ("--time-limit", "inf", "more than 0 and at most 86400 seconds"),
        ("--time-limit", "1e10", "more than 0 and at most 86400 seconds"),
        ("--time-limit", "1e300", "more than 0 and at most 86400 seconds"),
        ("--time-limit", "nan", "more than 0 and at most 86400 seconds"),
        ("--time-limit", "-inf", "more than 0 and at most 86400 seconds"),
        ("--threads", "100000", "at least 1 and at most 1024 threads"),
        ("--memory-limit-mb", "99999999999999999999", "at least 64 and at most 1048576 MiB"),
        ("--max-output-mb", "0", "more than 0 MiB"),
        ("--sample-size", "1000", "at least 0 and at most 100 mismatches per column"),
    ],
)
def test_a_limit_out_of_range_names_its_option_and_range(
    files: Files,
    option: str,
    value: str,
    allowed: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, printed = _cli([*files.args(), option, value], monkeypatch, capsys)
    assert code == 2
    assert f"Invalid value for {option}" in printed
    assert f"give {allowed}" in printed
    assert "Traceback" not in printed and "OverflowError" not in printed


def test_the_largest_limits_score(
    files: Files, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    limits = ["--time-limit", "86400", "--memory-limit-mb", "1048576", "--threads", "8"]
    code, printed = _cli([*files.args(), *limits, "--json"], monkeypatch, capsys)
    assert code == 0, printed
    assert json.loads(printed)["options"]["time_limit_seconds"] == 86400.0


@pytest.mark.parametrize("seconds", [float("inf"), float("nan"), 1e10])
def test_score_options_refuse_a_time_limit_the_timer_cannot_take(seconds: float) -> None:
    with pytest.raises(ValueError, match="time_limit_seconds"):
        ScoreOptions(time_limit_seconds=seconds)


# the truth's format ----------------------------------------------------------------------


def _one_error_line(printed: str) -> list[str]:
    lines = printed.strip().splitlines()
    assert [line.split(":")[0] for line in lines] == ["error", "hint"], printed
    return lines


def test_a_truth_of_random_bytes_is_named_in_one_line(
    files: Files, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    truth = files.truth.parent / "bin.parquet"
    truth.write_bytes(bytes(range(256)) * 20)
    code, printed = _cli(files.args(truth=truth), monkeypatch, capsys)
    assert code == 2
    error, hint = _one_error_line(printed)
    assert error == f"error: {truth}: not a Parquet or CSV file (binary bytes, no Parquet header)"
    assert "m4bench setup" in hint and "CSV" in hint


def test_a_cut_off_parquet_truth_is_named_in_one_line(
    files: Files, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    truth = files.truth.parent / "cut.parquet"
    truth.write_bytes(files.truth.read_bytes()[:200])
    code, printed = _cli(files.args(truth=truth), monkeypatch, capsys)
    assert code == 2
    error, _ = _one_error_line(printed)
    assert error.startswith(f"error: {truth}: a damaged Parquet file: ")


def test_an_empty_truth_is_named(
    files: Files, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    truth = files.truth.parent / "empty.csv"
    truth.write_bytes(b"")
    code, printed = _cli(files.args(truth=truth), monkeypatch, capsys)
    assert code == 2
    assert _one_error_line(printed)[0] == f"error: {truth}: ground truth file is empty"


def test_a_gzip_truth_is_read_whatever_its_name(files: Files) -> None:
    truth = files.truth.parent / "truth.csv"  # gzip bytes, no .gz suffix
    truth.write_bytes(gzip.compress(b"stay_id,rate,label\n1,10.0,a\n2,20.0,b\n3,30.0,c\n"))
    score = score_output(spec_for(["stay_id"], ["rate", "label"]), truth, files.output)
    assert [column.matched for column in score.columns] == [1, 3]


# --task with --spec/--truth -------------------------------------------------------------


@pytest.mark.parametrize(
    ("mode", "files_given", "named"),
    [
        (
            ["--task", "mimic-sofa-24h"],
            ["spec", "truth"],
            "--task cannot be combined with --spec and --truth",
        ),
        (["--task", "mimic-sofa-24h"], ["truth"], "--task cannot be combined with --truth"),
        (["--source", "synthetic-mimic-iv"], ["spec", "truth"], "--source cannot be combined"),
    ],
)
def test_task_mode_and_file_mode_do_not_mix(
    files: Files,
    mode: list[str],
    files_given: list[str],
    named: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = [*mode, "--output", str(files.output)]
    for name in files_given:
        args += [f"--{name}", str(getattr(files, name))]
    code, printed = _cli(args, monkeypatch, capsys)
    assert code == 2
    error, _ = _one_error_line(printed)
    assert named in error and "--spec and --truth score a file pair" in error
