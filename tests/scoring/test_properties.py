"""Properties of the score that must hold for any truth and any edit of the answer."""

from __future__ import annotations

import csv
import io
import tempfile
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scoring_helpers import spec_for

from m4bench.scoring import Score, ScoreOptions, Scorer

Row = tuple[int, float | None, str | None]

TEXT = st.text(alphabet="ab ,\"\n'xyz", min_size=1, max_size=6)
ROWS = st.lists(
    st.tuples(
        st.integers(min_value=-50, max_value=10_000),
        st.none() | st.floats(min_value=-1e6, max_value=1e6, allow_nan=False),
        st.none() | TEXT,
    ),
    min_size=1,
    max_size=25,
    unique_by=lambda row: row[0],
)
SPEC = spec_for(["k"], ["x", "s"], tolerance={"x": 0.001})
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _csv(rows: list[Row]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["k", "x", "s"])
    for key, x, s in rows:
        writer.writerow([key, "" if x is None else repr(x), "" if s is None else s])
    return buffer.getvalue()


def _write_truth(folder: Path, rows: list[Row]) -> Path:
    truth = folder / "truth.parquet"
    table = pa.table(
        {
            "k": pa.array([row[0] for row in rows], pa.int64()),
            "x": pa.array([row[1] for row in rows], pa.float64()),
            "s": pa.array([row[2] for row in rows], pa.string()),
        }
    )
    pq.write_table(table, truth)
    return truth


def _score_all(truth_rows: list[Row], *outputs: list[Row]) -> list[Score]:
    with tempfile.TemporaryDirectory() as folder:
        truth = _write_truth(Path(folder), truth_rows)
        output = Path(folder) / "output.csv"
        scores = []
        with Scorer(SPEC, truth, ScoreOptions(threads=1)) as scorer:
            for rows in outputs:
                output.write_text(_csv(rows), encoding="utf-8")
                scores.append(scorer.score(output))
        return scores


def _counts(score: Score) -> list[tuple[int, ...]]:
    return [
        (c.matched, c.mismatched, c.missing, c.extra, c.duplicate, c.uncastable)
        for c in score.columns
    ]


@SETTINGS
@given(ROWS)
def test_truth_scored_against_itself_is_perfect(rows: list[Row]) -> None:
    (score,) = _score_all(rows, rows)
    assert score.reward == 1.0
    assert score.strict_pass
    assert score.keys.f1 == 1.0
    assert score.ordered_error.nmae_matched_rows == 0.0


@SETTINGS
@given(ROWS, st.randoms(use_true_random=False))
def test_row_order_does_not_matter(rows: list[Row], rng: object) -> None:
    shuffled = rows[:]
    rng.shuffle(shuffled)  # type: ignore[attr-defined]
    edited = [(key, None if index % 3 else x, s) for index, (key, x, s) in enumerate(rows)]
    shuffled_edit = [edited[rows.index(row)] for row in shuffled]
    original, permuted = _score_all(rows, edited, shuffled_edit)
    assert original.reward == permuted.reward
    assert _counts(original) == _counts(permuted)


@SETTINGS
@given(ROWS, st.data())
def test_edits_never_raise_the_reward(rows: list[Row], data: st.DataObject) -> None:
    answer = data.draw(st.lists(st.sampled_from(rows), unique=True, min_size=1))
    extra_key = max(row[0] for row in rows) + 1
    with_extra = [*answer, (extra_key, 1.0, "q")]
    with_duplicate = [*answer, answer[0]]
    without_one = answer[1:]
    base, extra, duplicate, removed = _score_all(
        rows, answer, with_extra, with_duplicate, without_one
    )
    for edited in (extra, duplicate, removed):
        assert edited.reward <= base.reward
        assert 0.0 <= edited.reward <= 1.0


@SETTINGS
@given(ROWS, st.lists(st.tuples(st.text(max_size=8), st.text(max_size=8), st.text(max_size=8))))
def test_arbitrary_cells_keep_the_reward_in_range(
    rows: list[Row], junk: list[tuple[str, str, str]]
) -> None:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows([("k", "x", "s"), *junk])
    with tempfile.TemporaryDirectory() as folder:
        truth = _write_truth(Path(folder), rows)
        output = Path(folder) / "output.csv"
        output.write_text(buffer.getvalue(), encoding="utf-8")
        with Scorer(SPEC, truth, ScoreOptions(threads=1)) as scorer:
            score = scorer.score(output)
    assert 0.0 <= score.reward <= 1.0
    assert score.failure is None
