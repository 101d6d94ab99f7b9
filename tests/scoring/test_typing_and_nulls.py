"""Where typing by the truth deliberately differs from the paper's code, and null tokens."""

from __future__ import annotations

import pytest
from scoring_helpers import OutputMaker, TruthMaker, spec_for

from m4bench.scoring import ScoreOptions, score_output

NUMERIC_TRUTH = "SELECT * FROM (VALUES (1, 1), (2, 2), (3, 3), (4, NULL)) v(k, x)"


def test_one_text_cell_costs_only_that_cell(
    make_truth: TruthMaker, make_output: OutputMaker
) -> None:
    # The paper's code would fall back to string comparison for the whole column,
    # where "1.0" != "1"; here only the "oops" cell is wrong.
    truth = make_truth(NUMERIC_TRUTH)
    output = make_output("k,x\n1,1.0\n2,oops\n3,3.0\n4,\n")
    column = score_output(spec_for(["k"], ["x"]), truth, output).columns[0]
    assert (column.matched, column.mismatched, column.uncastable) == (3, 1, 1)
    assert column.mismatch_sample[0].reason == "uncastable"
    assert column.mismatch_sample[0].agent == "oops"


def test_blank_key_cell_does_not_zero_the_run(
    make_truth: TruthMaker, make_output: OutputMaker
) -> None:
    # The paper's code types keys per side; one blank key makes the merge fail and
    # the whole run score 0. Here the blank-key row is one extra key.
    truth = make_truth(NUMERIC_TRUTH)
    output = make_output("k,x\n1,1\n2,2\n3,3\n4,\n,5\n")
    score = score_output(spec_for(["k"], ["x"]), truth, output)
    assert score.columns[0].matched == 4
    assert score.keys.extra_keys == 1
    assert score.columns[0].match_rate == 0.8


def test_text_key_cell_in_integer_key_is_an_unmatched_key(
    make_truth: TruthMaker, make_output: OutputMaker
) -> None:
    truth = make_truth(NUMERIC_TRUTH)
    output = make_output("k,x\n1,1\nstay-2,2\nstay-2,2\n3,3\n4,\n")
    score = score_output(spec_for(["k"], ["x"]), truth, output)
    keys = score.keys
    assert (keys.uncastable_key_rows, keys.extra_keys, keys.duplicate_rows) == (2, 1, 1)
    assert keys.missing_keys == 1
    # 3 matched / (4 truth + 1 extra + 1 duplicate)
    assert score.columns[0].match_rate == 0.5


def test_null_literals_are_values_under_the_empty_rule(
    make_truth: TruthMaker, make_output: OutputMaker
) -> None:
    truth = make_truth(NUMERIC_TRUTH)
    output = make_output("k,x\n1,1\n2,2\n3,3\n4,NaN\n")
    column = score_output(spec_for(["k"], ["x"]), truth, output).columns[0]
    assert column.matched == 3
    assert column.mismatch_sample[0].reason == "truth_null"


@pytest.mark.parametrize("token", ["NA", "NaN", "NULL", "None", "null", " na "])
def test_extended_rule_reads_null_tokens_as_null(
    make_truth: TruthMaker, make_output: OutputMaker, token: str
) -> None:
    truth = make_truth(NUMERIC_TRUTH)
    output = make_output(f"k,x\n1,1\n2,2\n3,3\n4,{token}\n")
    options = ScoreOptions(null_tokens="extended")
    score = score_output(spec_for(["k"], ["x"]), truth, output, options=options)
    assert score.columns[0].matched == 4
    assert score.null_tokens == "extended"


def test_extended_rule_leaves_text_columns_alone(
    make_truth: TruthMaker, make_output: OutputMaker
) -> None:
    # A ventilation status label "None" is a value, not a missing cell.
    truth = make_truth("SELECT * FROM (VALUES (1, 'None'), (2, NULL)) v(k, status)")
    output = make_output("k,status\n1,None\n2,NA\n")
    options = ScoreOptions(null_tokens="extended")
    column = score_output(spec_for(["k"], ["status"]), truth, output, options=options).columns[0]
    assert column.matched == 1
    assert column.mismatch_sample[0].key == {"k": "2"}


def test_nan_and_infinity_never_match_and_never_crash(
    make_truth: TruthMaker, make_output: OutputMaker
) -> None:
    truth = make_truth("SELECT * FROM (VALUES (1, 1.0), (2, 2.0), (3, 3.0)) v(k, x)")
    output = make_output("k,x\n1,nan\n2,inf\n3,1e400\n")
    spec = spec_for(["k"], ["x"], tolerance={"x": 1e300})
    score = score_output(spec, truth, output)
    assert score.columns[0].matched == 0
    assert score.ordered_error.nmae_matched_rows == 1.0


def test_huge_integer_key_does_not_crash(make_truth: TruthMaker, make_output: OutputMaker) -> None:
    truth = make_truth(NUMERIC_TRUTH)
    output = make_output("k,x\n99999999999999999999999999999,1\n1,1\n")
    score = score_output(spec_for(["k"], ["x"]), truth, output)
    assert score.keys.uncastable_key_rows == 1
    assert score.columns[0].matched == 1


def test_decimal_and_boolean_truth_columns(
    make_truth: TruthMaker, make_output: OutputMaker
) -> None:
    truth = make_truth(
        "SELECT * FROM (VALUES (1, 15.000::DECIMAL(6,3), true), (2, 2.5::DECIMAL(6,3), false)) "
        "v(k, d, b)"
    )
    output = make_output("k,d,b\n1,15.0,true\n2,2.50,1\n")
    score = score_output(spec_for(["k"], ["d", "b"]), truth, output)
    d, b = score.columns
    assert (d.comparison, b.comparison) == ("numeric", "boolean")
    assert d.matched == 2
    assert b.matched == 1  # "1" casts to true, truth is false
