"""The demo from nothing and again with its data present, side by side.

    python bench/demo.py [--full]

Prints each stage's seconds for both runs, the totals, their ratio, and the machine's
load (wall times on a loaded machine stretch; CPU time does not).
"""

from __future__ import annotations

import argparse
import os
import resource
import tempfile
import time
from pathlib import Path

from m4bench.demo import DemoOptions, DemoReport, run_demo
from m4bench.home import DataHome


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime + children.ru_utime + children.ru_stime


def _run(home: DataHome, small: bool) -> tuple[DemoReport, float, float]:
    wall, cpu = time.perf_counter(), _cpu()
    report = run_demo(home, DemoOptions(small=small, progress=False))
    return report, time.perf_counter() - wall, _cpu() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--full", action="store_true", help="the full demo (default: --small)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="m4bench-bench-demo-") as tmp:
        home = DataHome(Path(tmp))
        first, wall1, cpu1 = _run(home, not args.full)
        second, wall2, cpu2 = _run(home, not args.full)
    print(f"{'stage':<16}{'from nothing':>14}{'data present':>14}")
    for a, b in zip(first.stages, second.stages, strict=True):
        print(f"{a.name:<16}{a.seconds:>13.1f}s{b.seconds:>13.1f}s  ({a.status} / {b.status})")
    print(f"{'total wall':<16}{wall1:>13.1f}s{wall2:>13.1f}s  ratio {wall1 / wall2:.1f}x")
    print(f"{'total CPU':<16}{cpu1:>13.1f}s{cpu2:>13.1f}s  ratio {cpu1 / cpu2:.1f}x")
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
