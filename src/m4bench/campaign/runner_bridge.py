"""The real run function: one planned run executed by the runner."""

from __future__ import annotations

from pathlib import Path

from m4bench.campaign.retry import RunFn
from m4bench.errors import M4BenchError


def runner_run_function(results: Path) -> RunFn:
    """A run function over ``m4bench.runner``; fails clearly while it is unavailable."""
    raise M4BenchError(
        "real agent runs need the runner (m4bench.runner), which this build lacks",
        hint="rehearse the campaign with --simulate until the runner is installed",
    )
