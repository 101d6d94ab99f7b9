"""The audit's cost: every mutant in-process against each mutant as a recorded run.

    .venv/bin/python bench/audit.py [--home DIR] [--task mimic-kdigo-48h] [--runs 3] [--no-full]

The audit runs each reference and mutant once per reference file, in-process, and scores
it with the real scorer. The alternative, one recorded ``mutant:NAME`` run per mutant
(workdir, oracle plan, derived tables rebuilt, sandbox ``none``, result record), is timed
on the same task and source, side by side; target: the in-process path at least 5x
cheaper per mutant. Also printed: the whole audit of each default synthetic source.
``--home`` keeps the sources between invocations.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from m4bench.home import DataHome
from m4bench.provision.provisioner import setup
from m4bench.runner import RunOptions, RunSpec, execute_run
from m4bench.sources.layout import Source, list_source_names, load_source
from m4bench.sources.synth import synthesize_mimic_iv
from m4bench.sources.synth.eicu import synthesize_eicu
from m4bench.tasks.catalog import load_catalog
from m4bench.tasks.mutants import catalog_mutant_source, task_mutants
from m4bench.validity import audit


def default_source(home: DataHome, dataset: str) -> Source:
    name = f"synthetic-{dataset}"
    if name in list_source_names(home):
        return load_source(home, name)
    if dataset == "mimic-iv":
        return synthesize_mimic_iv(home, progress=True)
    return synthesize_eicu(home, progress=True)


def per_mutant_in_process(source: Source, home: DataHome, task: str, runs: int) -> float:
    count = len(task_mutants(load_catalog().task(task)))
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        audit(source, [task], home=home)
        times.append((time.perf_counter() - started) / count)
    return statistics.median(times)


def per_mutant_as_runs(source: Source, home: DataHome, task: str, runs: int) -> float:
    catalog = load_catalog()
    setup(home, source.name, [task], progress=False)
    options = RunOptions(sandbox="none", catalog=catalog, mutants=catalog_mutant_source(catalog))
    names = [m.name for m in task_mutants(catalog.task(task))]
    times = []
    with tempfile.TemporaryDirectory(dir=home.root) as results:
        for trial in range(1, runs + 1):
            started = time.perf_counter()
            for name in names:
                spec = RunSpec.model_validate(
                    {"task": task, "agent": f"mutant:{name}", "trial": trial}
                )
                execute_run(
                    spec, home=home, source=source.name, results_dir=Path(results), options=options
                )
            times.append((time.perf_counter() - started) / len(names))
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, default=None)
    parser.add_argument("--task", default="mimic-kdigo-48h")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-full", action="store_true", help="skip the whole-source audits")
    args = parser.parse_args()
    home = DataHome(args.home.resolve()) if args.home else DataHome(Path(tempfile.mkdtemp()))
    mimic = default_source(home, "mimic-iv")
    eicu = default_source(home, "eicu")
    for source in () if args.no_full else (mimic, eicu):
        started = time.perf_counter()
        report = audit(source, home=home)
        mutants = sum(len(t.mutants) for t in report.tasks)
        print(
            f"audit {source.name}: {len(report.tasks)} tasks, {mutants} scored mutants, "
            f"{len(report.coverage)} bins, {time.perf_counter() - started:.1f} s "
            f"(passed: {report.passed})"
        )
    ours = per_mutant_in_process(mimic, home, args.task, args.runs)
    theirs = per_mutant_as_runs(mimic, home, args.task, args.runs)
    print(f"{args.task}, per mutant: in-process {ours:.3f} s, as a recorded run {theirs:.3f} s")
    print(f"ratio: {theirs / ours:.1f}x (target >= 5x)")


if __name__ == "__main__":
    main()
