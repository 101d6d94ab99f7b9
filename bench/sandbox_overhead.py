"""Sandbox overhead per run: bwrap start plus a no-op agent, side by side with no sandbox.

Measures, as the median of N runs each:
  plain      the no-op command (``true``) started directly
  none       the same through the ``none`` backend (spec, logs, process group)
  bwrap      the same inside bwrap (namespaces, mounts, rlimits, unprivileged uid)
  bwrap+proxy  bwrap with proxy networking (egress proxy + in-sandbox bridge)
and prints each median with its ratio to ``plain``. The target for the whole harness
overhead per run (everything except agent time) is a median of at most 1 s; this
script covers the sandbox share of it.

Run: .venv/bin/python bench/sandbox_overhead.py [--runs N]
(bench/run_overhead.py measures the whole harness per run: prepare, canary, finish.)
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from m4bench.sandbox import BwrapSandbox, NetworkMode, NoSandbox, SandboxSpec


def _spec(root: Path, index: int, network: NetworkMode) -> SandboxSpec:
    workdir = root / f"run{index}" / "workdir"
    workdir.mkdir(parents=True)
    allowed = ("127.0.0.1:9",) if network is NetworkMode.PROXY else ()
    return SandboxSpec(
        workdir=workdir,
        log_dir=root / f"run{index}" / "logs",
        env={"PATH": "/usr/bin:/bin"},
        network=network,
        allowed_endpoints=allowed,
    )


def _median_seconds(runs: int, once: Callable[[int], None]) -> float:
    times = []
    for index in range(runs):
        started = time.perf_counter()
        once(index)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=21)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="m4bench-overhead-") as tmp:
        root = Path(tmp)
        bwrap, none = BwrapSandbox(), NoSandbox()

        def sandboxed(name: str, backend: BwrapSandbox | NoSandbox, net: NetworkMode) -> float:
            base = root / name
            base.mkdir()

            def once(i: int) -> None:
                result = backend.run(["true"], _spec(base, i, net), timeout=60)
                if result.returncode != 0:
                    raise SystemExit(f"{name}: no-op failed: {result.stderr_path.read_text()}")

            return _median_seconds(args.runs, once)

        plain = _median_seconds(args.runs, lambda _: subprocess.run(["true"], check=True))
        rows = [
            ("plain", plain),
            ("none", sandboxed("none", none, NetworkMode.NONE)),
            ("bwrap", sandboxed("bwrap", bwrap, NetworkMode.NONE)),
            ("bwrap+proxy", sandboxed("proxy", bwrap, NetworkMode.PROXY)),
        ]
    print(f"median of {args.runs} runs of a no-op agent")
    print(f"{'setup':<12} {'median ms':>10} {'x plain':>8}")
    for name, seconds in rows:
        print(f"{name:<12} {seconds * 1000:>10.1f} {seconds / plain:>8.1f}")
    worst = max(seconds for _, seconds in rows)
    verdict = "within" if worst <= 1.0 else "OVER"
    print(f"sandbox overhead {verdict} the 1 s per-run budget (worst median {worst * 1000:.0f} ms)")


if __name__ == "__main__":
    main()
