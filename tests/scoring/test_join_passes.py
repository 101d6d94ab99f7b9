"""A join split into passes gives exactly the score of a single pass."""

from __future__ import annotations

from typing import Any

import duckdb
import pytest
from scoring_helpers import OutputMaker, TruthMaker, spec_for

from m4bench.scoring import counts, engine, score_output
from m4bench.scoring.agent_table import AgentLayout
from m4bench.scoring.counts import KeyParts, join_passes

TRUTH = (
    "SELECT i // 24 AS stay_id, TIMESTAMP '2150-01-01' + to_hours(i % 24) AS charttime, "
    "CASE WHEN i % 11 = 0 THEN NULL ELSE i * 0.5 END AS x, i % 3 AS y "
    "FROM range(2000) r(i)"
)


def _output_text() -> str:
    rows = []
    for i in range(0, 2000, 2):
        hour = f"2150-01-01 {i % 24:02d}:00:00"
        x = "" if i % 7 == 0 else ("oops" if i % 13 == 0 else str(i * 0.5 + (i % 5) * 0.01))
        rows.append(f"{i // 24},{hour},{x},{i % 3}")
        if i % 50 == 0:  # a repeat with other values: the first row must win
            rows.append(f"{i // 24},{hour},-1,-1")
    rows += [f"{9000 + i},2150-01-01 00:00:00,1,1" for i in range(30)]  # extra keys
    rows += ["x,2150-01-01 00:00:00,1,1", "5,not a time,1,1"]  # keys that do not cast
    return "stay_id,charttime,x,y\n" + "\n".join(rows) + "\n"


@pytest.mark.parametrize("passes", [2, 3, 7])
def test_several_passes_score_like_one(
    passes: int,
    make_truth: TruthMaker,
    make_output: OutputMaker,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    truth, output = make_truth(TRUTH), make_output(_output_text())
    spec = spec_for(["stay_id", "charttime"], ["x", "y"], tolerance={"x": 0.02})
    single = score_output(spec, truth, output)
    monkeypatch.setattr(engine, "join_passes", lambda *_: passes)
    split = score_output(spec, truth, output)
    assert split.model_dump_json() == single.model_dump_json()
    assert single.keys.extra_keys == 32
    assert single.keys.duplicate_rows == 40
    assert 0 < single.reward < 1


def test_passes_grow_with_rows_and_shrink_with_memory() -> None:
    layout = AgentLayout(key_count=2, values={f"v{j}": j for j in range(11)})
    # 2 keys + 11 values + 1 flag word, 8 bytes each, + 4 (row number) + 32 = 148 bytes.
    assert join_passes(1000, layout, 1024) == 1
    assert join_passes(3_600_000, layout, 1024) == 1  # 533 MB: within a 512 MiB budget
    assert join_passes(4_000_000, layout, 1024) == 2  # 592 MB: over it
    assert join_passes(4_000_000, layout, 4096) == 1
    assert join_passes(4_000_000, layout, 256) == 5


# First key columns of every kind a pass can be cut on: ranges of the first key when
# its quantiles differ, hash parts when they do not (a constant first key).
SHAPES = {
    "integer": ("i // 7", True),
    "with nulls": ("CASE WHEN i % 10 = 0 THEN NULL ELSE i // 5 END", True),
    "text": ("'ward ' || (i % 37)", True),
    "timestamp": ("TIMESTAMP '2150-01-01' + to_minutes(i // 3)", True),
    "constant": ("7", False),
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_passes_cut_by_first_key_range_or_hash(
    shape: str,
    make_truth: TruthMaker,
    make_output: OutputMaker,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    first, by_range = SHAPES[shape]
    truth = make_truth(f"SELECT {first} AS g, i AS n, i * 0.5 AS x FROM range(600) r(i)")
    rows = duckdb.sql(f"SELECT g, n, x FROM '{truth}' ORDER BY n").fetchall()
    lines = []
    for g, n, x in rows:
        cell = "" if g is None else str(g)
        if n % 3:
            lines.append(f"{cell},{n},{x + (1 if n % 4 == 1 else 0)}")
        if n % 50 == 2:
            lines.append(f"{cell},{n},{x}")  # a repeat with the same cells
    first_cell = "" if rows[0][0] is None else rows[0][0]
    lines += [f"{first_cell},{100000 + n},1" for n in range(5)]  # extra keys
    output = make_output("g,n,x\n" + "\n".join(lines) + "\n")
    spec = spec_for(["g", "n"], ["x"])
    single = score_output(spec, truth, output)
    cuts: list[KeyParts] = []
    original = counts.key_parts

    def recorded(*args: Any) -> KeyParts:
        cuts.append(original(*args))
        return cuts[-1]

    monkeypatch.setattr(counts, "key_parts", recorded)
    for passes in (2, 3):
        monkeypatch.setattr(engine, "join_passes", lambda *_, n=passes: n)
        split = score_output(spec, truth, output)
        assert split.model_dump_json() == single.model_dump_json()
    assert [len(cut.bounds) for cut in cuts] == ([1, 2] if by_range else [0, 0])
    assert single.keys.extra_keys == 5 and single.keys.duplicate_rows > 0
    assert 0 < single.reward < 1
