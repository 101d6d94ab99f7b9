"""Ordered nMAE (both definitions), strict checks and the row-level diff."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest
from scoring_helpers import OutputMaker, TruthMaker, spec_for

from m4bench.scoring import score_output

# x spans 0..10 (scale 10); y is constant (scale 1.0).
TRUTH = (
    "SELECT * FROM (VALUES (1, 0.0, 5.0), (2, 10.0, 5.0), (3, 4.0, NULL), (4, 6.0, 5.0)) v(k, x, y)"
)


def test_nmae_paper_definition_ignores_missing_rows(
    make_truth: TruthMaker, make_output: OutputMaker
) -> None:
    truth = make_truth(TRUTH)
    # x errors: |1-0|/10 = 0.1, |30-10|/10 -> capped 1, stay 3 agent null vs 4 -> 1.
    # y errors: 0, |5.5-5|/1 = 0.5, both null -> 0. Stay 4 missing.
    output = make_output("k,x,y\n1,1,5\n2,30,5.5\n3,,\n")
    error = score_output(spec_for(["k"], ["x", "y"]), truth, output).ordered_error
    assert error.columns == ["x", "y"]
    assert error.scales == {"x": 10.0, "y": 1.0}
    assert error.per_column_matched_rows["x"] == pytest.approx(2.1 / 3)
    assert error.per_column_matched_rows["y"] == pytest.approx(0.5 / 3)
    assert error.nmae_matched_rows == pytest.approx((2.1 / 3 + 0.5 / 3) / 2)
    # Missing stay 4 costs 1 per column in the variant.
    assert error.per_column_all_truth_rows["x"] == pytest.approx(3.1 / 4)
    assert error.per_column_all_truth_rows["y"] == pytest.approx(1.5 / 4)


def test_nmae_counts_thousands_of_rows_sharing_one_outcome(
    make_truth: TruthMaker, make_output: OutputMaker
) -> None:
    # 5,000 rows that all leave x blank (one null each: 1 apiece), all give y exactly,
    # and 5,000 that get x off by 1 of its range 9,999 (0.0001 apiece).
    truth = make_truth("SELECT i AS k, CAST(i AS DOUBLE) AS x, 2.0 AS y FROM range(10000) r(i)")
    blank = "".join(f"{i},,2\n" for i in range(5000))
    off = "".join(f"{i},{i + 1},2\n" for i in range(5000, 10000))
    output = make_output("k,x,y\n" + blank + off)
    score = score_output(spec_for(["k"], ["x", "y"]), truth, output)
    error = score.ordered_error
    assert error.scales == {"x": 9999.0, "y": 1.0}
    assert error.per_column_matched_rows["x"] == pytest.approx((5000 + 5000 / 9999) / 10000)
    assert error.per_column_matched_rows["y"] == 0.0
    assert [column.matched for column in score.columns] == [0, 10000]


def test_the_same_output_always_gets_the_same_nmae(
    make_truth: TruthMaker, make_output: OutputMaker
) -> None:
    truth = make_truth("SELECT i AS k, sin(i) * 1000 AS x FROM range(1_000_000) r(i)")
    output = make_output("k,x\n" + "".join(f"{i},{1000 * (i % 7) / 7}\n" for i in range(1_000_000)))
    spec = spec_for(["k"], ["x"])
    errors = {score_output(spec, truth, output).ordered_error.nmae_matched_rows for _ in range(3)}
    assert len(errors) == 1


def test_nmae_charges_one_for_an_absent_column(
    make_truth: TruthMaker, make_output: OutputMaker
) -> None:
    truth = make_truth(TRUTH)
    output = make_output("k,x\n1,0\n2,10\n3,4\n4,6\n")
    error = score_output(spec_for(["k"], ["x", "y"]), truth, output).ordered_error
    assert error.per_column_matched_rows == {"x": 0.0, "y": 1.0}
    assert error.nmae_matched_rows == 0.5


@pytest.mark.parametrize(
    "content",
    ["", "k,x\n99,1\n", "x\n1\n", "k\n1\n"],
    ids=["empty", "no-match", "no-key", "no-columns"],
)
def test_nmae_over_matched_rows_is_none_when_no_row_matched(
    make_truth: TruthMaker, make_output: OutputMaker, content: str
) -> None:
    """Whether the output failed, matched no key or lacks every ordered column: with no
    matched row the paper's mean has nothing to average; every truth row still errs."""
    truth = make_truth(TRUTH)
    output = make_output(content)
    error = score_output(spec_for(["k"], ["x", "y"]), truth, output).ordered_error
    if content == "k\n1\n":
        assert error.nmae_matched_rows == 1.0
    else:
        assert error.nmae_matched_rows is None
        assert set(error.per_column_matched_rows.values()) == {None}
    assert error.nmae_all_truth_rows == 1.0


def test_nmae_skips_text_columns_and_honours_an_explicit_list(
    make_truth: TruthMaker, make_output: OutputMaker
) -> None:
    truth = make_truth("SELECT * FROM (VALUES (1, 'a', 2.0, 3.0)) v(k, s, x, y)")
    output = make_output("k,s,x,y\n1,a,2,3\n")
    assert score_output(spec_for(["k"], ["s", "x", "y"]), truth, output).ordered_error.columns == [
        "x",
        "y",
    ]
    explicit = spec_for(["k"], ["s", "x", "y"], ordered=["y"])
    assert score_output(explicit, truth, output).ordered_error.columns == ["y"]


def test_strict_checks_follow_the_thresholds(
    make_truth: TruthMaker, make_output: OutputMaker
) -> None:
    truth = make_truth(TRUTH)
    output = make_output("k,x,y\n1,0,5\n2,10,5\n3,4,\n")
    loose = score_output(spec_for(["k"], ["x", "y"], coverage=0.75, accuracy=0.75), truth, output)
    assert loose.strict_pass
    strict = score_output(spec_for(["k"], ["x", "y"], coverage=0.8, accuracy=0.75), truth, output)
    names = [check.name for check in strict.checks if not check.passed]
    assert names == ["row_coverage"]
    assert not strict.strict_pass


def test_missing_output_fails_exists_and_scores_zero(
    make_truth: TruthMaker, tmp_path: Path
) -> None:
    truth = make_truth(TRUTH)
    score = score_output(spec_for(["k"], ["x", "y"]), truth, tmp_path / "absent.csv")
    assert score.failure == "output_missing"
    assert score.reward == 0.0
    assert [check.passed for check in score.checks] == [False] * 6
    assert score.columns[0].missing == 4


def test_row_level_diff_lists_every_problem_row(
    make_truth: TruthMaker, make_output: OutputMaker, tmp_path: Path
) -> None:
    truth = make_truth(TRUTH)
    output = make_output("k,x,y\n1,0,5\n2,11,5\n2,10,5\n9,1,1\nbad,1,1\n3,4,\n")
    diff = tmp_path / "private" / "diff.parquet"
    score_output(spec_for(["k"], ["x", "y"]), truth, output, diff_path=diff)
    rows = duckdb.sql(
        f"SELECT status, agent_row, k, x__truth, x__agent, x__match FROM '{diff}'"
    ).fetchall()
    assert rows == [
        ("duplicate", 3, "2", None, "10.0", None),
        ("extra", 4, "9", None, "1.0", None),
        ("extra", 5, "bad", None, "1.0", None),
        ("mismatch", 2, "2", "10.0", "11.0", False),
        ("missing", None, "4", "6.0", None, False),
    ]


def test_diff_lists_missing_rows_in_truth_order(
    make_truth: TruthMaker, make_output: OutputMaker, tmp_path: Path
) -> None:
    # Truth keys 8, 9, 10, 11 in that order: as text, "10" and "11" would sort first.
    truth = make_truth("SELECT k, k * 1.0 AS x, 5.0 AS y FROM range(8, 12) r(k)")
    output = make_output("k,x,y\n9,0,5\n")
    diff = tmp_path / "diff.parquet"
    score_output(spec_for(["k"], ["x", "y"]), truth, output, diff_path=diff)
    rows = duckdb.sql(f"SELECT status, agent_row, k FROM '{diff}'").fetchall()
    assert rows == [
        ("mismatch", 1, "9"),
        ("missing", None, "8"),
        ("missing", None, "10"),
        ("missing", None, "11"),
    ]
