"""The verifier of an exported Harbor task: m4bench's scorer, writing Harbor's reward.

``tests/test.sh`` runs it from the ``m4bench.zip`` shipped beside it (the package's Python
modules; the task image provides duckdb and pydantic)::

    python3 -m m4bench.integrations.harbor_verifier --spec SPEC.json --truth TRUTH.parquet \\
        --output /app/output.csv --logs /logs/verifier

It scores the output (a regular file only: a link or a FIFO the agent left counts as no
output, as in a native run), then writes ``reward.json`` (``reward``, strict pass, key F1,
nMAE and ``match_rate.<column>``; see
:meth:`~m4bench.integrations.score_summary.ScoreSummary.rewards`) and ``score.json`` (the
scorer's whole ``Score``) into the logs folder, replacing anything already there, and
prints a one-line summary. Exit 0 when a score was written, 2 when the truth or spec is
unusable (a broken export, not the agent's failure).
"""

from __future__ import annotations

import argparse
import shutil
import stat
import sys
import tempfile
from pathlib import Path

from m4bench.errors import M4BenchError
from m4bench.fileio import atomic_write_text, canonical_json
from m4bench.integrations.harbor_model import REWARD_FILE
from m4bench.integrations.score_summary import ScoreSummary
from m4bench.scoring import Score, score_output
from m4bench.tasks.evaluation import EvaluationSpec

SCORE_FILE = "score.json"


def verify(spec_file: Path, truth: Path, output: Path, logs: Path) -> ScoreSummary:
    """Score ``output`` and write ``reward.json`` and ``score.json`` under ``logs``."""
    spec = EvaluationSpec.model_validate_json(spec_file.read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory(prefix="m4bench-verify-") as scratch:
        copy = Path(scratch) / "output.csv"
        if _regular_file(output):
            shutil.copyfile(output, copy)
        score = score_output(spec, truth=truth, output=copy)
    summary = ScoreSummary.of(score)
    write_reward(summary, score, logs)
    return summary


def _regular_file(path: Path) -> bool:
    try:
        return stat.S_ISREG(path.lstat().st_mode)
    except OSError:
        return False


def write_reward(summary: ScoreSummary, score: Score, logs: Path) -> None:
    logs.mkdir(parents=True, exist_ok=True)
    atomic_write_text(logs / SCORE_FILE, canonical_json(score.model_dump(mode="json")))
    atomic_write_text(logs / REWARD_FILE, canonical_json(summary.rewards()))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="harbor_verifier", description=__doc__)
    parser.add_argument("--spec", type=Path, required=True)
    parser.add_argument("--truth", type=Path, required=True)
    parser.add_argument("--output", type=Path, required=True)
    parser.add_argument("--logs", type=Path, required=True)
    args = parser.parse_args(argv)
    try:
        summary = verify(args.spec, args.truth, args.output, args.logs)
    except (M4BenchError, OSError, ValueError) as exc:
        print(f"m4bench verifier: {exc}", file=sys.stderr)
        return 2
    verdict = "strict pass" if summary.strict_pass else (summary.failure or "not a strict pass")
    print(f"m4bench reward {summary.reward:.6f} ({verdict}); key F1 {summary.key_f1:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
