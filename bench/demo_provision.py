"""The small demo's provisioning stage: every shipped task (as it was) against the four
tasks its campaign runs (as it is), side by side on the same sources.

    python bench/demo_provision.py

Builds the small demo's two synthetic sources and their concepts once, copies them into
two fresh homes, provisions all 28 tasks in one and the small demo's tasks in the other,
and prints each one's wall and CPU seconds, their ratio and the machine's load.
"""

from __future__ import annotations

import os
import resource
import shutil
import tempfile
import time
from pathlib import Path

from m4bench.demo.profile import SMALL_TASKS
from m4bench.demo.run import SMALL_STAYS, demo_sources
from m4bench.demo.stages import (
    DemoSources,
    build_demo_concepts,
    ensure_sources,
    provision,
    shipped_task_names,
)
from m4bench.home import DataHome


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime + children.ru_utime + children.ru_stime


def _copy(base: DataHome, root: Path, names: DemoSources) -> DataHome:
    home = DataHome(root)
    for name in (names.mimic, names.eicu):
        shutil.copytree(
            base.source_dir(name), home.source_dir(name), ignore=shutil.ignore_patterns("*.lock")
        )
    return home


def _provision(home: DataHome, names: DemoSources, tasks: list[str]) -> tuple[str, float, float]:
    wall, cpu = time.perf_counter(), _cpu()
    outcome = provision(home, names, tasks, progress=False)
    return outcome.detail, time.perf_counter() - wall, _cpu() - cpu


def main() -> None:
    names = demo_sources(small=True)
    with tempfile.TemporaryDirectory(prefix="m4bench-bench-demo-provision-") as tmp:
        base = DataHome(Path(tmp) / "base")
        ensure_sources(base, names, SMALL_STAYS, 0, progress=False)
        build_demo_concepts(base, names, progress=False)
        every = _provision(_copy(base, Path(tmp) / "every", names), names, shipped_task_names())
        small = _provision(_copy(base, Path(tmp) / "small", names), names, list(SMALL_TASKS))
    print(f"{'provisioning':<22}{'wall':>8}{'CPU':>8}  detail")
    for label, (detail, wall, cpu) in (
        ("every task (before)", every),
        ("its 4 tasks (after)", small),
    ):
        print(f"{label:<22}{wall:>7.1f}s{cpu:>7.1f}s  {detail}")
    print(f"ratio before/after: wall {every[1] / small[1]:.1f}x, CPU {every[2] / small[2]:.1f}x")
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
