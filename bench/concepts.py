"""Time a full concept-library build on a synthetic MIMIC-IV source.

Synthesizes a source at ``--scale`` (fraction of the real 94,458 ICU stays; default 0.1)
in a temporary data home, then builds every concept from scratch with ``--jobs``
workers and prints the per-concept build times, the five slowest, the total, and the
ratio of the total to the 10-minute target. With ``--compare-jobs`` the build is also
run from scratch with one worker, and the two totals are printed side by side.

    .venv/bin/python bench/concepts.py [--scale 0.1] [--jobs 2] [--compare-jobs] [--keep DIR]
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

from m4bench.concepts.build import BuildEvent, build_concepts
from m4bench.concepts.library import ConceptLibrary
from m4bench.home import DataHome
from m4bench.sources.layout import Source
from m4bench.sources.synth.mimic_iv import synthesize_mimic_iv

TARGET_SECONDS = 600.0


def fresh_build(source: Source, jobs: int) -> tuple[float, list[BuildEvent]]:
    """Delete any derived output, then build everything; (wall seconds, events)."""
    shutil.rmtree(source.layout.parquet_dir / "mimiciv_derived", ignore_errors=True)
    (source.layout.root / "concepts.json").unlink(missing_ok=True)
    events: list[BuildEvent] = []
    started = time.perf_counter()
    build_concepts(source, jobs=jobs, progress=False, on_event=events.append)
    return time.perf_counter() - started, events


def report(events: list[BuildEvent], total: float, jobs: int, library: ConceptLibrary) -> None:
    rows = sorted(events, key=lambda e: e.seconds, reverse=True)
    print(f"\nper-concept build time (jobs={jobs}):")
    for event in sorted(events, key=lambda e: e.name):
        category = library.get(event.name).category
        print(f"  {event.name:32s} {category:13s} {event.seconds:8.2f} s")
    print("\nslowest five:")
    for event in rows[:5]:
        print(f"  {event.name:32s} {event.seconds:8.2f} s")
    summed = sum(e.seconds for e in events)
    print(f"\ntotal wall time      {total:8.2f} s  ({len(events)} concepts)")
    print(f"sum of concept times {summed:8.2f} s  (parallelism {summed / total:.2f}x)")
    print(f"total / 10-min target = {total / TARGET_SECONDS:.3f} (<= 1 meets the target)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=0.1)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--compare-jobs", action="store_true", help="also time --jobs 1")
    parser.add_argument("--keep", type=Path, help="data home to use and keep (default: temp)")
    args = parser.parse_args()

    workdir = args.keep or Path(tempfile.mkdtemp(prefix="m4bench-bench-concepts-"))
    try:
        home = DataHome(workdir.resolve())
        started = time.perf_counter()
        source = synthesize_mimic_iv(
            home, "bench-concepts", scale=args.scale, seed=args.seed, force=True, progress=True
        )
        stays = source.manifest.tables["mimiciv_icu.icustays"].rows
        print(f"synthetic source: {stays} stays, {time.perf_counter() - started:.1f} s")
        library = ConceptLibrary.load()
        total, events = fresh_build(source, args.jobs)
        report(events, total, args.jobs, library)
        if args.compare_jobs and args.jobs != 1:
            single, _ = fresh_build(source, 1)
            print(
                f"\njobs=1 {single:8.2f} s | jobs={args.jobs} {total:8.2f} s | "
                f"speed-up {single / total:.2f}x"
            )
    finally:
        if args.keep is None:
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
