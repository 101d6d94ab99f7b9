"""Where the scorer reads an output as the paper's scorer did, and where it is stricter
on purpose (docs/scoring.md, 'Readings of a real output'); and a CSV truth typed from
the whole file."""

from __future__ import annotations

from pathlib import Path

import pytest
from scoring_helpers import OutputMaker, TruthMaker, spec_for

from m4bench.scoring import score_output

TRUTH = (
    "SELECT * FROM (VALUES (1, 1, TIMESTAMP '2202-11-14 10:00:00'), "
    "(2, 0, TIMESTAMP '2202-11-15 08:30:00')) v(stay_id, flag, charttime)"
)
SPEC = spec_for(["stay_id"], ["flag", "charttime"])
ROWS = "1,1,2202-11-14 10:00:00\n2,0,2202-11-15 08:30:00\n"


def test_blank_lines_before_the_header_are_skipped(
    make_truth: TruthMaker, make_output: OutputMaker
) -> None:
    for breaks in ("\n", "\r\n"):
        text = f"{breaks} \t{breaks}stay_id,flag,charttime{breaks}" + ROWS.replace("\n", breaks)
        score = score_output(SPEC, make_truth(TRUTH), make_output(text))
        assert (score.failure, score.reward) == (None, 1.0), breaks
        assert "2 blank line(s) before the header (skipped)" in score.diagnostics


def test_a_line_of_white_space_is_no_row(make_truth: TruthMaker, make_output: OutputMaker) -> None:
    text = "stay_id,flag,charttime\n1,1,2202-11-14 10:00:00\n  \t \n2,0,2202-11-15 08:30:00\n"
    score = score_output(SPEC, make_truth(TRUTH), make_output(text))
    assert score.reward == 1.0
    assert score.keys is not None and (score.keys.agent_rows, score.keys.extra_keys) == (2, 0)


def test_a_line_of_commas_is_a_row(make_truth: TruthMaker, make_output: OutputMaker) -> None:
    text = "stay_id,flag,charttime\n" + ROWS + ",,\n"
    score = score_output(SPEC, make_truth(TRUTH), make_output(text))
    assert score.keys is not None and score.keys.agent_rows == 3
    assert score.reward < 1.0


@pytest.mark.parametrize(
    ("flag", "charttime", "matched"),
    [
        ("1", "2202-11-14 10:00:00", (1, 1)),
        ("True", "2202-11-14 10:00:00", (0, 1)),  # text in a 0/1 column is text
        ("1", "11/14/2202 10:00", (1, 0)),  # day and month order is not guessed
        ("1", "2202-11-14T10:00:00Z", (1, 1)),
    ],
)
def test_deliberately_strict_cells(
    make_truth: TruthMaker,
    make_output: OutputMaker,
    flag: str,
    charttime: str,
    matched: tuple[int, int],
) -> None:
    text = f"stay_id,flag,charttime\n1,{flag},{charttime}\n"
    score = score_output(SPEC, make_truth(TRUTH), make_output(text))
    assert tuple(column.matched for column in score.columns) == matched


def _csv_truth(path: Path, late: str) -> Path:
    """A CSV truth whose column x is empty for 30,000 rows, then holds ``late``."""
    rows = "".join(f"{key},\n" for key in range(30_000))
    path.write_text(f"stay_id,x\n{rows}30000,{late}\n", encoding="utf-8")
    return path


def test_a_csv_truth_is_typed_from_its_whole_file(tmp_path: Path) -> None:
    truth = _csv_truth(tmp_path / "truth.csv", "1.5")
    output = tmp_path / "output.csv"
    output.write_text("stay_id,x\n30000,1.55\n", encoding="utf-8")
    spec = spec_for(["stay_id"], ["x"], tolerance={"x": 0.1})
    (column,) = score_output(spec, truth, output).columns
    assert column.comparison == "numeric"  # a sample of the first rows would say text
    assert column.matched == 1  # 1.55 is within the tolerance of 1.5 (as text: no match)


def test_a_csv_truth_column_that_turns_to_text_is_text(tmp_path: Path) -> None:
    truth = tmp_path / "truth.csv"
    rows = "".join(f"{key},{key}\n" for key in range(30_000))
    truth.write_text(f"stay_id,x\n{rows}30000,high\n", encoding="utf-8")
    output = tmp_path / "output.csv"
    output.write_text("stay_id,x\n30000,high\n1,1\n", encoding="utf-8")
    (column,) = score_output(spec_for(["stay_id"], ["x"]), truth, output).columns
    assert (column.comparison, column.matched) == ("text", 2)
