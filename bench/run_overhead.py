"""Harness overhead per run: everything except the agent's own time. Target: <= 1 s median.

Builds (once, in a temporary data home) a small synthetic MIMIC-IV source provisioned
for one task, then executes runs of a no-op agent (a replay of ``true``) and reports,
side by side, the median harness time (preparation, canary, scoring, keeping artifacts
and writing the record) with the bwrap sandbox, with the catalog loaded once (as a
campaign does) and reloaded per run (as a single ``m4bench run`` does), and with the
``none`` backend for comparison.

Run: .venv/bin/python bench/run_overhead.py [--runs N] [--task T] [--stays N]
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import tempfile
from pathlib import Path

from m4bench.concepts.build import build_concepts
from m4bench.home import DataHome
from m4bench.provision.provisioner import setup
from m4bench.runner import ResultRecord, RunOptions, RunSpec, execute_run
from m4bench.sources.synth.mimic_iv import synthesize_mimic_iv
from m4bench.tasks.catalog import load_catalog

SOURCE = "bench-mimic"
TARGET_SECONDS = 1.0


def series(
    home: DataHome, results: Path, task: str, options: RunOptions, runs: int
) -> list[ResultRecord]:
    records = []
    for trial in range(1, runs + 1):
        spec = RunSpec(task=task, agent="replay", trial=trial)
        record = execute_run(spec, home=home, source=SOURCE, results_dir=results, options=options)
        if record.status != "no_output":
            raise SystemExit(f"unexpected status {record.status}: {record.error}")
        records.append(record)
    return records


def report(label: str, records: list[ResultRecord]) -> None:
    def median(name: str) -> float:
        return statistics.median(getattr(r.timings, name) for r in records)

    harness = median("harness")
    print(
        f"{label:34s} harness {harness:6.3f} s  (prepare {median('prepare'):.3f}, "
        f"canary {median('canary'):.3f}, finish {median('finish'):.3f})  "
        f"agent {median('agent'):.3f} s  target ratio {harness / TARGET_SECONDS:.2f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--task", default="mimic-sofa-24h-raw")
    parser.add_argument("--stays", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="m4bench-overhead-") as folder:
        root = Path(folder)
        home = DataHome(root / "home")
        source = synthesize_mimic_iv(home, SOURCE, stays=args.stays, seed=1, progress=False)
        build_concepts(source, jobs=2, progress=False)
        setup(home, SOURCE, [args.task], "native", progress=False)
        noop = root / "noop.sh"
        noop.write_text("true\n", encoding="utf-8")
        catalog = load_catalog()
        print(f"{args.runs} runs of a no-op agent on {args.task}; medians")
        cases = [
            ("bwrap, catalog loaded once", RunOptions(sandbox="bwrap", catalog=catalog)),
            ("bwrap, catalog loaded per run", RunOptions(sandbox="bwrap")),
            ("none, catalog loaded once", RunOptions(sandbox="none", catalog=catalog)),
        ]
        for index, (label, options) in enumerate(cases):
            options = dataclasses.replace(options, replay_file=noop)
            report(label, series(home, root / f"results-{index}", args.task, options, args.runs))


if __name__ == "__main__":
    main()
