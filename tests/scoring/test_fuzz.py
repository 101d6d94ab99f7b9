"""Generated malformed outputs, scored without one exception.

Outputs are mutations of a valid answer: flipped, inserted, deleted and truncated
bytes; shuffled, repeated and renamed header names; odd delimiters, quotes, byte
order marks and encodings; hostile cell values; pure noise. Generation is seeded, so a
failure names a reproducible case.

The default suite scores the first ``SAMPLE_CASES`` cases of the first seed (and a
smaller run with samples and diffs); the heavy tier (``make test-full``) scores all
10,000, in four chunks of seeds, and the longer diff run.
"""

from __future__ import annotations

import random
from pathlib import Path

import duckdb
import pytest

from m4bench.scoring import ScoreOptions, Scorer
from m4bench.tasks.evaluation import EvaluationSpec

CASES_PER_CHUNK = 2500
CHUNKS = 4
FIRST_SEED = 20260504
SAMPLE_CASES = 400  # default suite: the first cases of chunk 0
HEADER = ["stay_id", "charttime", "x", "label"]
VALID = (
    b"stay_id,charttime,x,label\n"
    b"1,2150-01-01 10:00:00,1.5,a\n"
    b'2,2150-01-01 11:00:00,2.0,"b,c"\n'
    b'3,2150-01-01 12:00:00,,"multi\nline"\n'
    b"4,2150-01-02 00:00:00,4.25,d\n"
)
HOSTILE = [
    "",
    "NaN",
    "-inf",
    "1e400",
    "-1e-400",
    "99999999999999999999999",
    "0x10",
    "1,5",
    '"',
    '""',
    "None",
    "NULL",
    "2150-13-45",
    "infinity",
    "9999-12-31T23:59:59Z",
    "\x00",
    "\u00e9",
    "\ufeff",
    "1.0e",
    "true",
    " 1 ",
    "-0",
    "\r",
    "\t",
    "'1'",
    "1;2",
]


def _mutate_bytes(rng: random.Random, data: bytes) -> bytes:
    buffer = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        choice = rng.random()
        position = rng.randrange(len(buffer) + 1)
        if choice < 0.3 and buffer:
            buffer[min(position, len(buffer) - 1)] = rng.randrange(256)
        elif choice < 0.55:
            buffer[position:position] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 6)))
        elif choice < 0.8:
            del buffer[position : position + rng.randint(1, 10)]
        else:
            buffer[position:position] = rng.choice([b",", b'"', b"\n", b"\r\n", b"\x00", b";"])
    return bytes(buffer)


def _structural(rng: random.Random) -> bytes:
    names = HEADER[:]
    rng.shuffle(names)
    if rng.random() < 0.3:
        names.append(rng.choice(HEADER))
    if rng.random() < 0.2:
        names.remove(rng.choice(names))
    if rng.random() < 0.2:
        names = [name.upper() if rng.random() < 0.5 else f" {name}" for name in names]
    delimiter = rng.choice([",", ",", ",", ";", "\t", "|"])
    rows = [delimiter.join(names)]
    for _ in range(rng.randint(0, 12)):
        width = len(names) + rng.choice([-2, -1, 0, 0, 0, 1, 3])
        rows.append(delimiter.join(_cell(rng) for _ in range(max(width, 0))))
    text = rng.choice(["\n", "\r\n", "\r"]).join(rows) + rng.choice(["", "\n"])
    prefix = rng.choice([b"", b"", b"\xef\xbb\xbf", b"\xff\xfe"])
    encoding = rng.choice(["utf-8", "utf-8", "latin-1", "utf-16"])
    return prefix + text.encode(encoding, errors="replace")


def _cell(rng: random.Random) -> str:
    kind = rng.random()
    if kind < 0.4:
        return rng.choice(HOSTILE)
    if kind < 0.6:
        return str(rng.randint(-5, 10))
    if kind < 0.8:
        return f"2150-01-0{rng.randint(1, 3)} {rng.randint(0, 23):02d}:00:00"
    return repr(rng.uniform(-1e6, 1e6))


def _noise(rng: random.Random) -> bytes:
    size = rng.choice([0, 1, 2, 16, 300, 5000])
    head = rng.choice([b"", b"stay_id,charttime,x,label\n", b"\x1f\x8b", b"PK\x03\x04"])
    return head + rng.randbytes(size)


def generate(rng: random.Random) -> bytes:
    pick = rng.random()
    if pick < 0.45:
        return _mutate_bytes(rng, VALID)
    if pick < 0.85:
        return _structural(rng)
    return _noise(rng)


@pytest.fixture(scope="module")
def truth(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("fuzz") / "truth.parquet"
    with duckdb.connect() as con:
        con.execute(
            "COPY (SELECT * FROM (VALUES "
            "(1, TIMESTAMP '2150-01-01 10:00:00', 1.5, 'a'), "
            "(2, TIMESTAMP '2150-01-01 11:00:00', 2.0, 'b,c'), "
            "(3, TIMESTAMP '2150-01-01 12:00:00', NULL, 'multi\nline'), "
            "(4, TIMESTAMP '2150-01-02 00:00:00', 4.25, 'd')) "
            f"v(stay_id, charttime, x, label)) TO '{path}' (FORMAT parquet)"
        )
    return path


SPEC = EvaluationSpec(
    key_columns=["stay_id", "charttime"],
    value_columns=["x", "label"],
    required_columns=HEADER,
    scored_columns=["x", "label"],
    tolerance={"x": 0.01},
)


def test_valid_answer_scores_one(truth: Path, tmp_path: Path) -> None:
    output = tmp_path / "output.csv"
    output.write_bytes(VALID)
    with Scorer(SPEC, truth) as scorer:
        score = scorer.score(output)
    assert score.reward == 1.0
    assert score.strict_pass


def _check_cases(
    truth: Path, folder: Path, seed: int, cases: int, options: ScoreOptions, diff: bool
) -> list[str]:
    rng = random.Random(seed)
    output = folder / "output.csv"
    failures: list[str] = []
    with Scorer(SPEC, truth, options) as scorer:
        for case in range(cases):
            data = generate(rng)
            output.write_bytes(data)
            score = scorer.score(output, diff_path=folder / "diff.parquet" if diff else None)
            assert 0.0 <= score.reward <= 1.0, (seed, case, data)
            assert score.failure != "internal_error", (seed, case, data, score.diagnostics)
            if score.failure is not None:
                assert not score.strict_pass, (seed, case, data)
                failures.append(score.failure)
            if diff:
                assert not any("diff not written" in note for note in score.diagnostics)
    return failures


@pytest.mark.parametrize(
    ("chunk", "cases"),
    [
        (0, SAMPLE_CASES),
        *(pytest.param(c, CASES_PER_CHUNK, marks=pytest.mark.heavy) for c in range(CHUNKS)),
    ],
)
def test_malformed_outputs_never_raise(truth: Path, tmp_path: Path, chunk: int, cases: int) -> None:
    options = ScoreOptions(threads=1, max_line_bytes=4096, mismatch_sample_size=0)
    failures = _check_cases(truth, tmp_path, FIRST_SEED + chunk, cases, options, False)
    # The generator reaches both early refusals and full comparisons.
    assert 0 < len(failures) < cases


@pytest.mark.parametrize("cases", [100, pytest.param(300, marks=pytest.mark.heavy)])
def test_malformed_outputs_with_samples_and_diff(truth: Path, tmp_path: Path, cases: int) -> None:
    options = ScoreOptions(threads=1, max_line_bytes=4096, mismatch_sample_size=3)
    failures = _check_cases(truth, tmp_path, 7, cases, options, True)
    assert 0 < len(failures) < cases
