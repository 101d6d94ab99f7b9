"""Campaign scheduling efficiency: N fake runs of fixed duration, local and Ray executors.

Efficiency = ideal time / actual time, where ideal = N x duration / jobs (every slot
busy all the time). The gap is the driver's own work per run: claiming it, recording
its attempt, writing its result atomically (with fsync), and starting the next one.
Target: >= 0.9 at the machine's core count.

Run: .venv/bin/python bench/campaign.py [--runs N] [--seconds S] [--jobs J]
Ray is optional (pip install 'm4bench[ray]'); without it only the local row prints.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from m4bench.campaign import (
    DriverSettings,
    Executor,
    LocalExecutor,
    PlanOptions,
    ResultsDir,
    RetryPolicy,
    SimulatedRun,
    plan_campaign,
)
from m4bench.campaign.driver import run_campaign
from m4bench.campaign.profile import parse_profile

POLICY = RetryPolicy(base_delay_seconds=0.0, max_delay_seconds=0.0)


def _profile(runs: int) -> dict[str, object]:
    """One task, one condition, one model: ``runs`` trials of the same cell."""
    return {
        "name": "bench",
        "default_agent": "fake",
        "trials": runs,
        "agents": {"fake": {"provider": "none", "models": {"primary": ["m"]}}},
        "blocks": [{"name": "b", "tasks": ["mimic-meld-24h"], "conditions": ["no-skill"]}],
    }


def _measure(executor: Executor, runs: int, seconds: float, jobs: int) -> tuple[float, float]:
    planned = plan_campaign(parse_profile(_profile(runs), Path("bench")), PlanOptions())
    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        report = run_campaign(ResultsDir(Path(tmp)), planned, executor, DriverSettings("bench"))
        actual = time.perf_counter() - started
    assert report.missing == 0, report
    ideal = runs * seconds / jobs
    return actual, ideal


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    fake = SimulatedRun(min_seconds=args.seconds, max_seconds=args.seconds)
    print(f"{args.runs} runs of {args.seconds:.2f} s, {args.jobs} at a time")
    print(f"{'executor':<10}{'ideal s':>10}{'actual s':>10}{'efficiency':>12}")
    rows = [("local", LocalExecutor(fake, args.jobs, POLICY))]
    try:
        from m4bench.campaign.ray_executor import RayExecutor, import_ray

        ray = import_ray()
        ray.init(address="local", num_cpus=args.jobs, include_dashboard=False, log_to_driver=False)
        rows.append(("ray", RayExecutor(fake, POLICY, jobs=args.jobs)))
    except Exception as exc:  # Ray missing or unable to start: report and go on
        print(f"ray: skipped ({exc})")
    for name, executor in rows:
        actual, ideal = _measure(executor, args.runs, args.seconds, args.jobs)
        print(f"{name:<10}{ideal:>10.2f}{actual:>10.2f}{ideal / actual:>12.3f}")


if __name__ == "__main__":
    main()
