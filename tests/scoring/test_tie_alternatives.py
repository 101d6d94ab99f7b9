"""Admissible tie alternatives: a cell another valid tie order gives scores as matched,
keys that order adds or drops are neither extra nor missing, and nothing else changes.

The truth and its alternatives are written as provisioning writes them: stay 1's row
differs under the other order, stay 4 is not in it and stay 5 only in it.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pyarrow as pa
import pytest
from scoring_helpers import spec_for
from typer.testing import CliRunner

from m4bench.cli import app
from m4bench.provision.alternatives import alternatives_of, write_alternatives
from m4bench.provision.ground_truth import write_truth_file
from m4bench.scoring import Score, ScoreOptions, Scorer
from m4bench.scoring.alternatives_file import alternatives_path

SPEC = spec_for(["stay_id"], ["sofa", "resp", "pf"], coverage=1.0, accuracy=1.0)
HEADER = "stay_id,sofa,resp,pf\n"
TRUTH_ROWS = {1: (5, 2, 250.0), 2: (3, 1, 350.0), 3: (0, 0, 450.0), 4: (1, 0, 500.0)}
OTHER_ROWS = {1: (6, 3, 180.0), 2: (3, 1, 350.0), 3: (0, 0, 450.0), 5: (2, 1, 300.0)}


def _table(rows: dict[int, tuple[int, int, float]]) -> pa.Table:
    return pa.table(
        {
            "stay_id": pa.array(list(rows), pa.int64()),
            "sofa": pa.array([r[0] for r in rows.values()], pa.int32()),
            "resp": pa.array([r[1] for r in rows.values()], pa.int32()),
            "pf": pa.array([r[2] for r in rows.values()], pa.float64()),
        }
    )


@pytest.fixture
def truth(tmp_path: Path) -> Path:
    path = tmp_path / "sofa.parquet"
    table = _table(TRUTH_ROWS)
    write_truth_file(table, path, ["stay_id"])
    computed = alternatives_of(table, ["stay_id"], {"gas=other": _table(OTHER_ROWS)})
    entry = write_alternatives(computed, path, table.num_rows)
    assert (entry.rows, entry.added_keys, entry.absent_keys) == (3, 1, 1)
    assert entry.cells == {"sofa": 1, "resp": 1, "pf": 1}
    return path


def _csv(tmp_path: Path, rows: dict[int, tuple[int, int, float]], name: str) -> Path:
    path = tmp_path / name
    lines = [f"{key},{a},{b},{c}\n" for key, (a, b, c) in rows.items()]
    path.write_text(HEADER + "".join(lines), encoding="utf-8")
    return path


def _score(truth: Path, output: Path, ties: str = "admit") -> Score:
    with Scorer(SPEC, truth, ScoreOptions(ties=ties)) as scorer:  # type: ignore[arg-type]
        return scorer.score(output)


def test_the_other_order_scores_one_and_passes_strictly(truth: Path, tmp_path: Path) -> None:
    score = _score(truth, _csv(tmp_path, OTHER_ROWS, "other.csv"))
    assert score.reward == 1.0 and score.strict_pass
    assert [c.matched_by_alternative for c in score.columns] == [1, 1, 1]
    keys = score.keys
    assert (keys.truth_rows, keys.extra_keys, keys.missing_keys) == (4, 0, 0)
    assert (keys.alternative_keys, keys.excused_keys) == (1, 1)
    assert score.ordered_error.nmae_matched_rows == 0.0
    assert any(note.startswith("ties admitted: 3 cells") for note in score.diagnostics)
    strict = _score(truth, _csv(tmp_path, OTHER_ROWS, "again.csv"), ties="strict")
    assert score.strict_ties is not None and strict.strict_ties is None
    assert (score.strict_ties.reward, score.strict_ties.strict_pass) == (strict.reward, False)


def test_strict_ties_score_against_the_truth_alone(truth: Path, tmp_path: Path) -> None:
    score = _score(truth, _csv(tmp_path, OTHER_ROWS, "other.csv"), ties="strict")
    assert score.options.ties == "strict"
    assert score.reward < 1.0 and not score.strict_pass
    assert [c.matched_by_alternative for c in score.columns] == [0, 0, 0]
    keys = score.keys
    assert (keys.truth_rows, keys.extra_keys, keys.missing_keys) == (4, 1, 1)
    assert score.columns[0].mismatch_sample[0].key == {"stay_id": "1"}
    assert score.ordered_error.nmae_matched_rows > 0.0


def test_the_truth_itself_still_scores_one(truth: Path, tmp_path: Path) -> None:
    output = _csv(tmp_path, TRUTH_ROWS, "truth.csv")
    for ties in ("admit", "strict"):
        score = _score(truth, output, ties)
        assert score.reward == 1.0 and score.strict_pass, ties
        assert score.keys.alternative_keys == score.keys.excused_keys == 0
        assert score.strict_ties is None  # nothing went through an alternative


def test_a_real_error_beside_the_other_order_is_still_wrong(truth: Path, tmp_path: Path) -> None:
    rows = dict(OTHER_ROWS)
    rows[2] = (4, 1, 350.0)  # sofa off by one where no order differs
    score = _score(truth, _csv(tmp_path, rows, "wrong.csv"))
    assert score.reward < 1.0 and not score.strict_pass
    sofa = score.columns[0]
    assert (sofa.matched, sofa.mismatched, sofa.matched_by_alternative) == (3, 1, 1)
    # the sample shows the real error, not the cell matched through an alternative
    assert [m.key for m in sofa.mismatch_sample] == [{"stay_id": "2"}]


def test_an_alternative_counts_only_at_its_own_key(truth: Path, tmp_path: Path) -> None:
    rows = dict(TRUTH_ROWS)
    rows[3] = (6, 3, 180.0)  # stay 1's alternative row, written for stay 3
    score = _score(truth, _csv(tmp_path, rows, "moved.csv"))
    assert score.reward < 1.0
    assert [c.mismatched for c in score.columns] == [1, 1, 1]
    assert [c.matched_by_alternative for c in score.columns] == [0, 0, 0]


def test_a_dropped_key_is_excused_only_when_an_order_lacks_it(truth: Path, tmp_path: Path) -> None:
    rows = {key: value for key, value in TRUTH_ROWS.items() if key != 3}
    score = _score(truth, _csv(tmp_path, rows, "dropped.csv"))
    assert score.keys.missing_keys == 1 and score.keys.excused_keys == 0
    assert [s.get("stay_id") for s in score.keys.missing_key_sample] == ["3"]
    assert not score.strict_pass


def test_an_alternatives_file_of_another_truth_is_not_used(truth: Path, tmp_path: Path) -> None:
    other = tmp_path / "other-truth.parquet"
    write_truth_file(_table({**TRUTH_ROWS, 6: (0, 0, 400.0)}), other, ["stay_id"])
    shutil.copy(alternatives_path(truth), alternatives_path(other))
    score = _score(other, _csv(tmp_path, OTHER_ROWS, "other.csv"))
    assert [c.matched_by_alternative for c in score.columns] == [0, 0, 0]
    assert score.keys.alternative_keys == 0 and score.reward < 1.0


def test_the_score_command_takes_ties_strict(truth: Path, tmp_path: Path) -> None:
    spec = tmp_path / "spec.json"
    spec.write_text(SPEC.model_dump_json(), encoding="utf-8")
    output = _csv(tmp_path, OTHER_ROWS, "other.csv")
    base = ["score", "--spec", str(spec), "--truth", str(truth), "--output", str(output)]
    runner = CliRunner()
    admitted = json.loads(runner.invoke(app, [*base, "--json"]).output)
    strict = json.loads(runner.invoke(app, [*base, "--json", "--ties", "strict"]).output)
    assert (admitted["reward"], admitted["options"]["ties"]) == (1.0, "admit")
    assert strict["reward"] < 1.0 and strict["options"]["ties"] == "strict"
    wrong = runner.invoke(app, [*base, "--ties", "loose"])
    assert wrong.exit_code == 2 and "must be 'admit' or 'strict'" in wrong.output
