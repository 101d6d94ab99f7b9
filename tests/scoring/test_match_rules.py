"""The paper's per-column match rules, each on a tiny table worked out by hand."""

from __future__ import annotations

from pathlib import Path

import pytest
from scoring_helpers import OutputMaker, TruthMaker, spec_for

from m4bench.errors import M4BenchError
from m4bench.scoring import ScoreOptions, score_output

FOUR_STAYS = (
    "SELECT * FROM (VALUES (1, 1.5, 'a'), (2, 2.0, 'b'), (3, NULL, 'c'), (4, 4.25, NULL)) "
    "v(stay_id, x, label)"
)


def test_truth_against_itself_scores_one_and_passes(
    make_truth: TruthMaker, make_output: OutputMaker
) -> None:
    truth = make_truth(FOUR_STAYS)
    output = make_output("stay_id,x,label\n1,1.5,a\n2,2.0,b\n3,,c\n4,4.25,\n")
    score = score_output(spec_for(["stay_id"], ["x", "label"]), truth, output)
    assert score.reward == 1.0
    assert score.strict_pass
    assert score.failure is None
    assert [check.passed for check in score.checks] == [True] * 6


def test_denominator_counts_truth_rows_extra_keys_and_duplicate_rows(
    make_truth: TruthMaker, make_output: OutputMaker
) -> None:
    # stays 1-3 right, stay 4 missing, stay 9 extra, stay 2 repeated:
    # x matched 3 of 4 + 1 + 1 = 6 -> 0.5.
    truth = make_truth(FOUR_STAYS)
    output = make_output("stay_id,x,label\n1,1.5,a\n2,2,b\n2,2,b\n3,,c\n9,1,z\n")
    score = score_output(spec_for(["stay_id"], ["x", "label"]), truth, output)
    x = score.columns[0]
    assert (x.matched, x.mismatched, x.missing, x.extra, x.duplicate) == (3, 0, 1, 1, 1)
    assert x.denominator == 6
    assert x.match_rate == 0.5
    assert score.reward == 0.5
    assert score.keys.agent_unique_keys == 4
    assert score.keys.agent_keys_in_truth == 3


def test_first_of_duplicate_rows_is_the_one_compared(
    make_truth: TruthMaker, make_output: OutputMaker
) -> None:
    truth = make_truth(FOUR_STAYS)
    output = make_output("stay_id,x,label\n1,9.9,a\n1,1.5,a\n2,2,b\n3,,c\n4,4.25,\n")
    x = score_output(spec_for(["stay_id"], ["x", "label"]), truth, output).columns[0]
    # stay 1 first row is wrong: 3 matched of 4 truth rows + 1 duplicate.
    assert (x.matched, x.duplicate, x.denominator) == (3, 1, 5)
    assert x.mismatch_sample[0].key == {"stay_id": "1"}
    assert x.mismatch_sample[0].agent == "9.9"


def test_both_null_matches_only_when_the_agent_produced_the_key(
    make_truth: TruthMaker, make_output: OutputMaker
) -> None:
    truth = make_truth(FOUR_STAYS)
    with_key = make_output("stay_id,x,label\n3,,c\n")
    without_key = make_output("stay_id,x,label\n1,1.5,a\n")
    spec = spec_for(["stay_id"], ["x", "label"])
    assert score_output(spec, truth, with_key).columns[0].matched == 1
    # stay 3's null x is not matched when stay 3 is absent; stay 1 matches.
    assert score_output(spec, truth, without_key).columns[0].matched == 1


def test_numbers_compare_numerically_and_text_exactly(
    make_truth: TruthMaker, make_output: OutputMaker
) -> None:
    truth = make_truth("SELECT * FROM (VALUES (1, 1, '1'), (2, 20, 'Blood')) v(k, n, s)")
    output = make_output("k,n,s\n1,1.0,1.0\n2,2e1,BLOOD\n")
    score = score_output(spec_for(["k"], ["n", "s"]), truth, output)
    n, s = score.columns
    assert n.matched == 2  # 1 == 1.0 and 20 == 2e1
    assert s.matched == 0  # '1' != '1.0', 'Blood' != 'BLOOD'
    assert {sample.reason for sample in s.mismatch_sample} == {"value"}


@pytest.mark.parametrize(
    ("agent", "tolerance", "matched"),
    [
        ("1.009", 0.01, 1),
        ("1.011", 0.01, 0),
        ("1.1", 0.1, 1),  # exactly at tolerance although 1.1 - 1.0 > 0.1 in binary
        ("1.2", 0.1, 0),
        ("0.99", 0.0, 0),
        ("1.0", 0.0, 1),
    ],
)
def test_absolute_tolerance(
    make_truth: TruthMaker,
    make_output: OutputMaker,
    agent: str,
    tolerance: float,
    matched: int,
) -> None:
    truth = make_truth("SELECT 1 AS k, 1.0::DOUBLE AS x")
    output = make_output(f"k,x\n1,{agent}\n")
    spec = spec_for(["k"], ["x"], tolerance={"x": tolerance})
    assert score_output(spec, truth, output).columns[0].matched == matched


def test_relative_tolerance_is_a_fraction_of_the_truth(
    make_truth: TruthMaker, make_output: OutputMaker
) -> None:
    truth = make_truth("SELECT * FROM (VALUES (1, 200.0), (2, 2.0)) v(k, x)")
    output = make_output("k,x\n1,203\n2,2.5\n")
    spec = spec_for(["k"], ["x"], tolerance={"x": {"absolute": 0.0, "relative": 0.02}})
    # |203-200| = 3 <= 4; |2.5-2| = 0.5 > 0.04.
    assert score_output(spec, truth, output).columns[0].matched == 1


def test_timestamps_compare_within_seconds(
    make_truth: TruthMaker, make_output: OutputMaker
) -> None:
    truth = make_truth(
        "SELECT * FROM (VALUES (1, TIMESTAMP '2150-01-01 10:00:00'), "
        "(2, TIMESTAMP '2150-01-01 10:00:00'), (3, TIMESTAMP '2150-01-01 10:00:00')) v(k, t)"
    )
    output = make_output("k,t\n1,2150-01-01T10:00:59\n2,2150-01-01 10:01:01\n3,2150-01-01\n")
    spec = spec_for(["k"], ["t"], tolerance={"t": 60})
    column = score_output(spec, truth, output).columns[0]
    assert column.comparison == "temporal"
    assert column.matched == 1


def test_integer_and_timestamp_keys_join_across_spellings(
    make_truth: TruthMaker, make_output: OutputMaker
) -> None:
    truth = make_truth(
        "SELECT * FROM (VALUES (30000001, TIMESTAMP '2150-01-01 10:00:00', 5)) "
        "v(stay_id, charttime, x)"
    )
    output = make_output("stay_id,charttime,x\n30000001.0,2150-01-01T10:00:00.000,5\n")
    score = score_output(spec_for(["stay_id", "charttime"], ["x"]), truth, output)
    assert score.reward == 1.0


def test_fractional_key_is_uncastable_not_rounded(
    make_truth: TruthMaker, make_output: OutputMaker
) -> None:
    truth = make_truth("SELECT * FROM (VALUES (1, 5), (2, 6)) v(k, x)")
    output = make_output("k,x\n1.5,6\n1,5\n")
    score = score_output(spec_for(["k"], ["x"]), truth, output)
    assert score.keys.uncastable_key_rows == 1
    assert score.keys.agent_keys_in_truth == 1
    assert score.keys.extra_keys == 1
    assert score.keys.extra_key_sample == [{"k": "1.5"}]


def test_missing_value_column_scores_zero_for_that_column_only(
    make_truth: TruthMaker, make_output: OutputMaker
) -> None:
    truth = make_truth(FOUR_STAYS)
    output = make_output("stay_id,x\n1,1.5\n2,2.0\n3,\n4,4.25\n")
    score = score_output(spec_for(["stay_id"], ["x", "label"]), truth, output)
    x, label = score.columns
    assert (x.match_rate, label.match_rate) == (1.0, 0.0)
    assert not label.present and label.error
    assert score.reward == 0.5
    assert not score.checks[2].passed  # has_required_columns


def test_missing_key_column_fails_the_whole_output(
    make_truth: TruthMaker, make_output: OutputMaker
) -> None:
    truth = make_truth(FOUR_STAYS)
    output = make_output("id,x,label\n1,1.5,a\n")
    score = score_output(spec_for(["stay_id"], ["x", "label"]), truth, output)
    assert score.failure == "key_columns_missing"
    assert score.reward == 0.0
    assert not score.strict_pass


def test_reward_keeps_eight_decimals_so_near_perfect_is_not_one(
    make_truth: TruthMaker, make_output: OutputMaker
) -> None:
    truth = make_truth("SELECT i AS k, i * 2 AS x FROM range(200859) r(i)")
    lines = ["k,x"] + [f"{i},{i * 2 if i else 7}" for i in range(200859)]
    output = make_output("\n".join(lines) + "\n")
    score = score_output(spec_for(["k"], ["x"], accuracy=1.0), truth, output)
    assert score.columns[0].matched == 200858
    assert score.reward == 0.99999502
    assert not score.columns[0].passed
    assert not score.strict_pass


def test_key_precision_recall_f1(make_truth: TruthMaker, make_output: OutputMaker) -> None:
    truth = make_truth(FOUR_STAYS)
    output = make_output("stay_id,x,label\n1,0,a\n2,0,b\n8,0,x\n9,0,y\n9,0,y\n")
    keys = score_output(spec_for(["stay_id"], ["x", "label"]), truth, output).keys
    # unique agent keys {1,2,8,9}; 2 in truth: precision 2/4, recall 2/4, F1 0.5.
    assert (keys.precision, keys.recall, keys.f1) == (0.5, 0.5, 0.5)
    assert (keys.duplicate_rows, keys.extra_keys, keys.missing_keys) == (1, 2, 2)
    assert keys.missing_key_sample == [{"stay_id": "3"}, {"stay_id": "4"}]


def test_truth_with_duplicate_keys_is_a_harness_error(make_truth: TruthMaker) -> None:
    truth = make_truth("SELECT * FROM (VALUES (1, 1), (1, 2)) v(k, x)")
    with pytest.raises(M4BenchError, match="same key"):
        score_output(spec_for(["k"], ["x"]), truth, Path("/nonexistent.csv"))


def test_truth_missing_a_scored_column_is_a_harness_error(make_truth: TruthMaker) -> None:
    truth = make_truth("SELECT 1 AS k")
    with pytest.raises(M4BenchError, match="lacks columns"):
        score_output(spec_for(["k"], ["x"]), truth, Path("/nonexistent.csv"))


def test_gzipped_csv_truth_is_typed_by_duckdb(tmp_path: Path, make_output: OutputMaker) -> None:
    import gzip

    truth = tmp_path / "truth.csv.gz"
    truth.write_bytes(gzip.compress(b"stay_id,x,label\n1,1.5,None\n2,,b\n"))
    output = make_output("stay_id,x,label\n1,1.50,None\n2,,b\n")
    score = score_output(spec_for(["stay_id"], ["x", "label"]), truth, output)
    assert score.reward == 1.0
    assert score.columns[0].comparison == "numeric"


def test_options_are_recorded(make_truth: TruthMaker, make_output: OutputMaker) -> None:
    truth = make_truth(FOUR_STAYS)
    output = make_output("stay_id,x,label\n1,1.5,a\n")
    options = ScoreOptions(null_tokens="extended", mismatch_sample_size=0)
    score = score_output(spec_for(["stay_id"], ["x", "label"]), truth, output, options=options)
    assert score.null_tokens == "extended"
    assert score.options == options


def test_samples_are_the_first_disagreements_even_late_in_the_truth(
    make_truth: TruthMaker, make_output: OutputMaker
) -> None:
    # x disagrees on every 10th row from the start; y and the missing keys only in the
    # last rows, so they lie beyond the truth prefix their rates suggest (about 4,300
    # rows) and the sample join has to read the whole truth.
    truth = make_truth("SELECT i AS k, i * 1.0 AS x, i * 2.0 AS y FROM range(20000) r(i)")
    rows = [f"{i},{i + (i % 10 == 3)},{2 * i + (i >= 15000)}" for i in range(18000)]
    output = make_output("k,x,y\n" + "\n".join(rows) + "\n")
    score = score_output(spec_for(["k"], ["x", "y"]), truth, output)
    x, y = score.columns
    assert [s.key["k"] for s in x.mismatch_sample] == ["3", "13", "23", "33", "43"]
    assert [s.key["k"] for s in y.mismatch_sample] == ["15000", "15001", "15002", "15003", "15004"]
    assert y.mismatch_sample[0].agent == "30001.0"
    missing = [key["k"] for key in score.keys.missing_key_sample]
    assert missing == ["18000", "18001", "18002", "18003", "18004"]


def test_a_column_the_output_lacks_has_no_sample(
    make_truth: TruthMaker, make_output: OutputMaker
) -> None:
    truth = make_truth("SELECT i AS k, i * 1.0 AS x, i * 2.0 AS y FROM range(50) r(i)")
    output = make_output("k,x\n" + "\n".join(f"{i},{i + (i == 7)}" for i in range(50)) + "\n")
    x, y = score_output(spec_for(["k"], ["x", "y"]), truth, output).columns
    assert [s.key["k"] for s in x.mismatch_sample] == ["7"]
    assert (y.matched, y.mismatch_sample) == (0, [])
