"""Hostile outputs end in a Score with a diagnostic, never in an exception."""

from __future__ import annotations

import gzip
import os
from pathlib import Path

import pytest
from scoring_helpers import OutputMaker, TruthMaker, spec_for

from m4bench.scoring import ScoreOptions, Scorer, score_output

TRUTH = "SELECT * FROM (VALUES (1, 1.5, 'a'), (2, 2.0, 'b')) v(stay_id, x, label)"
GOOD = "stay_id,x,label\n1,1.5,a\n2,2.0,b\n"
SPEC = spec_for(["stay_id"], ["x", "label"])


def _score(truth: Path, output: Path, **options: object) -> object:
    return score_output(SPEC, truth, output, options=ScoreOptions.model_validate(options))


@pytest.mark.parametrize(
    ("content", "failure"),
    [
        (b"", "output_empty"),
        (gzip.compress(GOOD.encode(), mtime=0), "output_compressed"),
        ("\ufeffstay_id,x,label\n1,1.5,a\n".encode("utf-16"), "header_unreadable"),
        (b"\n \n\t\n", "header_unreadable"),  # blank lines alone: no header
        (b"\n \r\nstay_id,x,label\r\n1,1.5,a\r\n", "header_unreadable"),  # mixed breaks
        (b"stay_id;x;label\n1;1.5;a\n", "key_columns_missing"),
        (bytes(range(256)) * 4, "output_unreadable"),
        (b"PAR1\x15\x00\x15\x1c", "output_unreadable"),
        (b"`Gf\xe8N\xb58C\xaa5a\xef\x96c\x01\x9cI\xd7\n\x94+\x00\xce", "output_unreadable"),
    ],
)
def test_unusable_outputs_name_their_problem(
    make_truth: TruthMaker, tmp_path: Path, content: bytes, failure: str
) -> None:
    output = tmp_path / "output.csv"
    output.write_bytes(content)
    score = score_output(SPEC, make_truth(TRUTH), output)
    assert score.failure == failure
    assert score.reward == 0.0
    assert not score.strict_pass
    assert score.diagnostics
    if failure == "output_unreadable":
        kind = "a Parquet file" if content.startswith(b"PAR1") else "binary"
        assert f"output is {kind}, not text" in score.diagnostics[-1]


def test_semicolon_file_gets_a_delimiter_hint(make_truth: TruthMaker, tmp_path: Path) -> None:
    output = tmp_path / "output.csv"
    output.write_text("stay_id;x;label\n1;1.5;a\n")
    score = score_output(SPEC, make_truth(TRUTH), output)
    assert any("';'" in note for note in score.diagnostics)


def test_size_limit_refuses_without_reading(
    make_truth: TruthMaker, make_output: OutputMaker
) -> None:
    output = make_output(GOOD)
    options = ScoreOptions(max_output_bytes=10)
    score = score_output(SPEC, make_truth(TRUTH), output, options=options)
    assert score.failure == "output_too_large"
    assert score.limits_hit == ["max_output_bytes"]


def test_ten_thousand_columns_hit_the_column_limit(
    make_truth: TruthMaker, make_output: OutputMaker
) -> None:
    header = ",".join(["stay_id", "x", "label"] + [f"c{i}" for i in range(10_000)])
    output = make_output(header + "\n1,1.5,a\n")
    score = score_output(SPEC, make_truth(TRUTH), output)
    assert score.failure == "too_many_columns"
    assert score.limits_hit == ["max_columns"]


def test_overlong_header_hits_the_line_limit(
    make_truth: TruthMaker, make_output: OutputMaker
) -> None:
    output = make_output("stay_id,x,label," + "y" * 10_000 + "\n1,1.5,a\n")
    score = score_output(SPEC, make_truth(TRUTH), output, options=ScoreOptions(max_line_bytes=4096))
    assert score.failure == "header_unreadable"
    assert score.limits_hit == ["max_line_bytes"]


def test_symlink_and_directory_are_refused(make_truth: TruthMaker, tmp_path: Path) -> None:
    truth = make_truth(TRUTH)
    link = tmp_path / "link.csv"
    os.symlink(truth, link)
    assert score_output(SPEC, truth, link).failure == "output_not_a_file"
    assert score_output(SPEC, truth, tmp_path).failure == "output_not_a_file"


def test_bom_crlf_and_quoted_newlines_are_read(make_truth: TruthMaker, tmp_path: Path) -> None:
    truth = make_truth(
        "SELECT * FROM (VALUES (1, 1.5, 'a\nb'), (2, 2.0, 'c,\"d\"')) v(stay_id, x, label)"
    )
    output = tmp_path / "output.csv"
    output.write_bytes(b'\xef\xbb\xbfstay_id,x,label\r\n1,1.5,"a\nb"\r\n2,2.0,"c,""d"""\r\n')
    score = score_output(SPEC, truth, output)
    assert score.reward == 1.0
    assert any("byte order mark" in note for note in score.diagnostics)


def test_duplicate_header_names_use_the_first(
    make_truth: TruthMaker, make_output: OutputMaker
) -> None:
    output = make_output("stay_id,x,label,x\n1,1.5,a,9\n2,2.0,b,9\n")
    score = score_output(SPEC, make_truth(TRUTH), output)
    assert score.reward == 1.0
    assert any("repeats column names ['x']" in note for note in score.diagnostics)


def test_invalid_utf8_line_is_skipped_and_counted(make_truth: TruthMaker, tmp_path: Path) -> None:
    output = tmp_path / "output.csv"
    output.write_bytes(b"stay_id,x,label\n1,1.5,a\n2,2.0,\xff\xfe\n")
    score = score_output(SPEC, make_truth(TRUTH), output)
    assert score.rejected_lines == 1
    assert score.columns[0].matched == 1
    assert any("INVALID ENCODING" in note for note in score.diagnostics)


def test_a_skipped_line_in_an_output_with_columns_not_compared(
    make_truth: TruthMaker, tmp_path: Path
) -> None:
    """Rejected lines with columns the scorer does not compare: every column must still be
    read, or DuckDB fails inside its CSV reader."""
    output = tmp_path / "output.csv"
    output.write_bytes(b"stay_id,junk,x,label,more\n1,a,1.5,a,z\n2,\xff\xfe,2.0,b,q\n")
    score = score_output(SPEC, make_truth(TRUTH), output)
    assert score.failure is None and score.rejected_lines == 1
    assert [column.matched for column in score.columns] == [1, 1]


def test_ragged_rows_are_padded_with_nulls(
    make_truth: TruthMaker, make_output: OutputMaker
) -> None:
    output = make_output("stay_id,x,label\n1,1.5\n2,2.0,b,extra\n")
    score = score_output(SPEC, make_truth(TRUTH), output)
    x, label = score.columns
    assert (x.matched, label.matched) == (2, 1)


def test_case_or_space_variants_of_names_get_a_hint(
    make_truth: TruthMaker, make_output: OutputMaker
) -> None:
    output = make_output("stay_id,X,label\n1,1.5,a\n")
    score = score_output(SPEC, make_truth(TRUTH), output)
    assert any("'x' is missing; the header has 'X'" in note for note in score.diagnostics)


def test_header_only_output_is_not_a_valid_csv(
    make_truth: TruthMaker, make_output: OutputMaker
) -> None:
    score = score_output(SPEC, make_truth(TRUTH), make_output("stay_id,x,label\n"))
    assert score.failure is None
    assert not score.checks[1].passed
    assert score.reward == 0.0


def _exact_answer(rows: int, step: float) -> tuple[str, str]:
    """A truth query of ``rows`` rows (x = i * step) and the CSV that answers it exactly."""
    truth = f"SELECT i AS stay_id, i * {step} AS x, 'a' AS label FROM range({rows}) r(i)"
    answer = "stay_id,x,label\n" + "".join(f"{i},{i * step},a\n" for i in range(rows))
    return truth, answer


def test_time_limit_stops_a_long_comparison(
    make_truth: TruthMaker, make_output: OutputMaker
) -> None:
    truth_sql, answer = _exact_answer(300000, 1.5)
    truth, output = make_truth(truth_sql), make_output(answer)
    options = ScoreOptions(time_limit_seconds=0.01)
    score = score_output(SPEC, truth, output, options=options)
    assert score.failure == "time_limit"
    assert score.limits_hit == ["time_limit_seconds"]
    assert score.reward == 0.0


def test_time_limit_stops_a_long_diff_and_the_score_stands(
    make_truth: TruthMaker, make_output: OutputMaker, tmp_path: Path
) -> None:
    truth_sql, answer = _exact_answer(3000, 1.5)
    truth, output = make_truth(truth_sql), make_output(answer.replace("\n7,", "\n7000000,"))
    full = score_output(SPEC, truth, output)
    diff = tmp_path / "diff.parquet"
    with pytest.MonkeyPatch.context() as patch:
        # A diff far slower than the limit: the limit of the whole score cuts it short.
        patch.setattr(
            "m4bench.scoring.engine.write_diff",
            lambda con, *_: con.execute("SELECT sum(i * i) FROM range(100000000000) r(i)"),
        )
        options = ScoreOptions(time_limit_seconds=2)
        cut = score_output(SPEC, truth, output, options=options, diff_path=diff)
    assert not diff.exists()
    assert cut.failure is None and cut.reward == full.reward < 1.0
    assert "the time limit (time_limit_seconds) ran out" in cut.diagnostics[-1]


def test_unwritable_scratch_space_is_a_resource_limit(
    make_truth: TruthMaker, make_output: OutputMaker
) -> None:
    truth = make_truth("SELECT 1 AS stay_id, 2.0 AS x, 'a' AS label")
    output = make_output("stay_id,x,label\n1,2.0,a\n")
    with Scorer(SPEC, truth) as scorer:
        assert scorer.score(output).reward == 1.0
        scratch = scorer.scratch_folder
        # A file where the folder was: the parsed rows cannot be written.
        for leftover in scratch.iterdir():
            leftover.unlink()
        scratch.rmdir()
        scratch.write_text("not a folder")
        score = scorer.score(output)
        scratch.unlink()
        scratch.mkdir()
    assert score.failure == "resource_limit"
    assert str(scratch) in score.diagnostics[-1]
    assert score.reward == 0.0


def test_scratch_space_holds_one_parsed_output_and_goes_away(
    make_truth: TruthMaker, make_output: OutputMaker
) -> None:
    truth_sql, answer = _exact_answer(50, 0.5)
    truth, right = make_truth(truth_sql), make_output(answer)
    wrong = make_output(_exact_answer(50, 1.0)[1])
    with Scorer(SPEC, truth) as scorer:
        scratch = scorer.scratch_folder
        rewards = [scorer.score(output).reward for output in (right, wrong, right)]
        assert len(list(scratch.glob("agent-*.parquet"))) == 1
    assert rewards[0] == rewards[2] == 1.0
    assert rewards[1] < 1.0
    assert not scratch.exists()


TRUTH_FOUR = (
    "SELECT * FROM (VALUES (1, 1.5, 'a'), (2, 2.0, 'b'), (3, 3.0, 'c'), (4, 4.0, 'd')) "
    "v(stay_id, x, label)"
)


@pytest.mark.parametrize(
    ("content", "row", "lines"),
    [
        ('stay_id,x,label\n1,1.5,a\n2,"2.0,b\n3,3.0,c\n4,4.0,d\n', 2, 2),
        ('stay_id,x,label\n1,1.5,a\n2,2.0,"b\n3,3.0,c\n4,4.0,d', 2, 2),
        ('stay_id,x,label\n1,1.5,a\n2,2.0,b\n3,3.0,c\n4,4.0,"d\n\n', 4, 0),
    ],
    ids=["middle-cell", "last-cell", "last-row"],
)
def test_a_quote_never_closed_is_named_and_its_lines_counted(
    make_truth: TruthMaker, make_output: OutputMaker, content: str, row: int, lines: int
) -> None:
    score = score_output(SPEC, make_truth(TRUTH_FOUR), make_output(content))
    notes = [note for note in score.diagnostics if "never closed" in note]
    if lines == 0:
        # Nothing after it was lost: no claim, and the row itself is still compared.
        assert notes == [] and score.columns[0].matched == 4
        return
    assert notes == [
        f"data row {row} opens a quoted cell that is never closed: the reader took the "
        f"remaining {lines} lines of the file into that cell, so their rows were not read "
        "(close the quote, or write a quote inside a quoted cell as two quotes)"
    ]
    assert score.rejected_lines == lines
    assert score.keys.agent_unique_keys == 2


def test_a_proper_multiline_cell_in_the_last_row_is_not_an_open_quote(
    make_truth: TruthMaker, make_output: OutputMaker
) -> None:
    truth = make_truth(
        "SELECT * FROM (VALUES (1, 1.5, 'a'), (2, 2.0, 'b\nc')) v(stay_id, x, label)"
    )
    score = score_output(SPEC, truth, make_output('stay_id,x,label\n1,1.5,a\n2,2.0,"b\nc"\n'))
    assert score.reward == 1.0 and score.rejected_lines == 0
    assert not any("never closed" in note for note in score.diagnostics)
