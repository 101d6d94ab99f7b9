"""Run an exported Harbor task's scripts directly, as Harbor would in its container:
the agent's workdir copied from ``environment/workdir``, ``solution/solve.sh`` (or another
plan) writing ``output.csv``, then ``tests/test.sh`` writing the reward."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from m4bench.integrations.harbor_files import PLAN_FILE, SQL_EXEC_FILE, plan

HARBOR_PYTHON_ENV = "M4BENCH_HARBOR_PYTHON"
"""An interpreter that has Harbor installed (Harbor needs Python 3.12 or later)."""
CHECK_SCRIPT = Path(__file__).with_name("harbor_check.py")


def run_trial(folder: Path, scratch: Path, statements: list[str] | None = None) -> dict[str, float]:
    """Solve (the folder's oracle, or ``statements``) in a fresh workdir, verify, and
    return the reward map the verifier wrote."""
    solve(folder, scratch, statements)
    return verify(folder, scratch)


def _environment(folder: Path, scratch: Path, solution: Path) -> dict[str, str]:
    return {
        **os.environ,
        "M4BENCH_WORKDIR": str(scratch / "app"),
        "M4BENCH_SOLUTION_DIR": str(solution),
        "M4BENCH_TESTS_DIR": str(folder / "tests"),
        "M4BENCH_VERIFIER_LOGS": str(scratch / "logs"),
        "M4BENCH_PYTHON": sys.executable,
    }


def solve(folder: Path, scratch: Path, statements: list[str] | None = None) -> Path:
    """The agent's workdir (``scratch/app``) after ``solution/solve.sh`` ran in it."""
    app, solution = scratch / "app", folder / "solution"
    shutil.copytree(folder / "environment" / "workdir", app)
    if statements is not None:
        solution = scratch / "solution"
        shutil.copytree(folder / "solution", solution)
        (solution / PLAN_FILE).write_text(json.dumps(plan(statements)), encoding="utf-8")
    assert (solution / SQL_EXEC_FILE).is_file()
    env = _environment(folder, scratch, solution)
    subprocess.run(["bash", str(solution / "solve.sh")], env=env, check=True, capture_output=True)
    return app


def verify(folder: Path, scratch: Path) -> dict[str, float]:
    """``tests/test.sh`` on ``scratch/app``; the reward map it wrote to ``scratch/logs``."""
    env = _environment(folder, scratch, folder / "solution")
    test = folder / "tests" / "test.sh"
    subprocess.run(["bash", str(test)], env=env, check=True, capture_output=True)
    rewards: dict[str, float] = json.loads(
        (scratch / "logs" / "reward.json").read_text(encoding="utf-8")
    )
    return rewards


def harbor_python() -> str | None:
    return os.environ.get(HARBOR_PYTHON_ENV) or None


def check_with_harbor(python: str, folders: list[Path]) -> None:
    """Load every folder with Harbor's own task model (raises on the first refusal)."""
    subprocess.run([python, str(CHECK_SCRIPT), *map(str, folders)], check=True, capture_output=True)
