"""Facts stored in a ground truth's footer: the same score with or without them."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from scoring_helpers import OutputMaker, spec_for

from m4bench.errors import M4BenchError
from m4bench.provision.ground_truth import write_truth_file
from m4bench.scoring import Score, score_output
from m4bench.scoring.truth_facts import (
    TruthFacts,
    footer_counts,
    measure_truth,
    stored_facts,
    with_facts,
)

TRUTH = (
    "SELECT i // 10 AS stay_id, i % 10 AS hour, i * 0.25 AS x, "
    "CASE WHEN i % 7 = 0 THEN NULL ELSE i % 5 END AS y, "
    "CASE WHEN i = 3 THEN 'NaN'::DOUBLE ELSE 1.5 END AS z, 'a' AS label "
    "FROM range(500) r(i)"
)
SPEC = spec_for(["stay_id", "hour"], ["x", "y", "z", "label"])


def _facts(path: Path) -> TruthFacts | None:
    with duckdb.connect() as con:
        return stored_facts(con, path)


def _table(select: str) -> pa.Table:
    with duckdb.connect() as con:
        return con.execute(select).fetch_arrow_table()


def test_provisioned_truth_carries_its_facts(tmp_path: Path) -> None:
    target = tmp_path / "truth.parquet"
    write_truth_file(_table(TRUTH), target, ["stay_id", "hour"])
    facts = _facts(target)
    assert facts is not None
    assert facts.rows == 500
    assert facts.unique_keys == ["stay_id", "hour"]
    # x spans 0..124.75; y 0..4; z holds a NaN, so its scale falls back to 1.0.
    assert facts.scales["x"] == 124.75
    assert facts.scales["y"] == 4.0
    assert facts.scales["z"] == 1.0
    assert "label" not in facts.scales


def test_scores_are_the_same_with_and_without_facts(
    tmp_path: Path, make_output: OutputMaker
) -> None:
    table = _table(TRUTH)
    with_footer, plain = tmp_path / "facts.parquet", tmp_path / "plain.parquet"
    write_truth_file(table, with_footer, ["stay_id", "hour"])
    pq.write_table(table, plain)
    assert _facts(plain) is None
    rows = [f"{i // 10},{i % 10},{i * 0.25 + (i % 3) * 0.5},{i % 5},1.5,a" for i in range(490)]
    output = make_output("stay_id,hour,x,y,z,label\n" + "\n".join(rows) + "\n")
    first = score_output(SPEC, with_footer, output)
    second = score_output(SPEC, plain, output)
    assert first.model_dump_json() == second.model_dump_json()
    assert first.ordered_error.scales == {"x": 124.75, "y": 4.0, "z": 1.0}


def test_repeated_truth_keys_are_recorded_and_still_refused(
    tmp_path: Path, make_output: OutputMaker
) -> None:
    target = tmp_path / "truth.parquet"
    write_truth_file(
        _table("SELECT 1 AS stay_id, 2 AS hour, 0.5 AS x FROM range(2)"),
        target,
        ["stay_id", "hour"],
    )
    facts = _facts(target)
    assert facts is not None and facts.unique_keys is None
    output = make_output("stay_id,hour,x\n1,2,0.5\n")
    with pytest.raises(M4BenchError, match="2 rows with the same key"):
        score_output(spec_for(["stay_id", "hour"], ["x"]), target, output)


def test_facts_that_do_not_fit_the_file_are_ignored(
    tmp_path: Path, make_output: OutputMaker
) -> None:
    table = _table("SELECT 1 AS stay_id, 2 AS hour, 0.5 AS x FROM range(2)")
    # Facts claiming unique keys, but for a different row count: not this file's.
    wrong = TruthFacts(rows=3, unique_keys=["stay_id", "hour"], scales={"x": 1.0})
    target = tmp_path / "truth.parquet"
    pq.write_table(with_facts(table, wrong), target)
    output = make_output("stay_id,hour,x\n1,2,0.5\n")
    with pytest.raises(M4BenchError, match="same key"):
        score_output(spec_for(["stay_id", "hour"], ["x"]), target, output)


def test_facts_for_other_keys_are_not_trusted(tmp_path: Path, make_output: OutputMaker) -> None:
    table = _table("SELECT 1 AS stay_id, i AS hour, 0.5 AS x FROM range(2) r(i)")
    target = tmp_path / "truth.parquet"
    write_truth_file(table, target, ["stay_id", "hour"])
    output = make_output("stay_id,x\n1,0.5\n")
    with pytest.raises(M4BenchError, match="same key"):
        score_output(spec_for(["stay_id"], ["x"]), target, output)


def test_unreadable_facts_are_ignored(tmp_path: Path) -> None:
    table = _table("SELECT 1 AS stay_id")
    target = tmp_path / "truth.parquet"
    pq.write_table(table.replace_schema_metadata({b"m4bench.truth_facts": b"{not json"}), target)
    assert _facts(target) is None
    assert measure_truth(table, ["absent"]).unique_keys is None


# Null keys: stay_id is null on 13 of the 117 rows (every 9th), and hour, when asked,
# on 9 (every 13th); both on row 31. Every key stays unique.
NULL_KEYS = (
    "SELECT CASE WHEN i % 9 = 4 THEN NULL ELSE i // 10 END AS stay_id, "
    "CASE WHEN i % 13 = 5 AND {hour_nulls} THEN NULL ELSE i END AS hour, "
    "i * 0.5 AS x FROM range(117) r(i)"
)


def _footer_counts(path: Path) -> tuple[int, int | None, list[str]] | None:
    """Rows, rows with a null key and the null-free columns, as the footer tells them."""
    with duckdb.connect() as con:
        found = footer_counts(con, path)
    if found is None:
        return None
    null_free = sorted(name for name, count in found.nulls.items() if not count)
    return found.rows, found.null_key_rows(["stay_id", "hour"]), null_free


def test_footer_counts_rows_with_a_null_key_in_one_column(tmp_path: Path) -> None:
    target = tmp_path / "truth.parquet"
    # Several row groups: the null counts of all of them are summed.
    pq.write_table(_table(NULL_KEYS.format(hour_nulls="false")), target, row_group_size=20)
    assert _footer_counts(target) == (117, 13, ["hour", "x"])


def test_footer_gives_way_to_a_scan_when_it_cannot_tell(tmp_path: Path) -> None:
    # Nulls in two key columns may share rows: the footer cannot count them.
    two = tmp_path / "two.parquet"
    pq.write_table(_table(NULL_KEYS.format(hour_nulls="true")), two)
    assert _footer_counts(two) == (117, None, ["x"])
    # No statistics at all: nothing is known about nulls.
    bare = tmp_path / "bare.parquet"
    pq.write_table(_table(NULL_KEYS.format(hour_nulls="false")), bare, write_statistics=False)
    assert _footer_counts(bare) == (117, None, [])


@pytest.mark.parametrize("hour_nulls", ["false", "true"])
def test_null_key_truths_score_the_same_from_the_footer_or_a_scan(
    tmp_path: Path, make_output: OutputMaker, hour_nulls: str
) -> None:
    table = _table(NULL_KEYS.format(hour_nulls=hour_nulls))
    rows = ["" if v is None else str(v) for row in table.to_pylist() for v in row.values()]
    cells = [",".join(rows[i : i + 3]) for i in range(0, len(rows), 3)]
    output = make_output("stay_id,hour,x\n" + "\n".join(cells[5:]) + "\n")
    score = _scored_with_and_without_statistics(tmp_path, table, ["x"], output)
    # Null keys the output repeats match (both-null keys join), so only 5 rows are lost.
    assert score.columns[0].matched == 112


def test_null_free_truth_columns_score_the_same_as_unknown_ones(
    tmp_path: Path, make_output: OutputMaker
) -> None:
    # y has nulls (every 7th row), x none; both ordered. The output blanks some cells of
    # each: a blank y where the truth's y is null matches, a blank x never does.
    table = _table(
        "SELECT i AS stay_id, 0 AS hour, i * 0.5 AS x, "
        "CASE WHEN i % 7 = 0 THEN NULL ELSE i % 5 END AS y FROM range(200) r(i)"
    )
    lines = []
    for i in range(200):
        x = "" if i % 9 == 0 else str(i * 0.5)
        y = "" if i % 3 == 0 else ("" if i % 7 == 0 else str(i % 5))
        lines.append(f"{i},0,{x},{y}")
    output = make_output("stay_id,hour,x,y\n" + "\n".join(lines) + "\n")
    score = _scored_with_and_without_statistics(tmp_path, table, ["x", "y"], output)
    # x: 23 blanks (multiples of 9) mismatch. y: blanks at multiples of 3 mismatch
    # unless the truth is null there too (multiples of 21: 10 of them).
    assert [column.matched for column in score.columns] == [200 - 23, 200 - (67 - 10)]


def _scored_with_and_without_statistics(
    folder: Path, table: pa.Table, values: list[str], output: Path
) -> Score:
    """The score against ``table`` written with footer statistics (in several row
    groups) and without any; both must be the same."""
    with_stats, bare = folder / "stats.parquet", folder / "bare.parquet"
    pq.write_table(table, with_stats, row_group_size=50)
    pq.write_table(table, bare, write_statistics=False)
    spec = spec_for(["stay_id", "hour"], values)
    first, second = score_output(spec, with_stats, output), score_output(spec, bare, output)
    assert first.model_dump_json() == second.model_dump_json()
    return first
