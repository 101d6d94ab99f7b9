"""Provisioning one run our way against the paper's way, measured side by side.

    .venv/bin/python bench/provision.py [--scale 0.1] [--seed 7] [--home DIR] [--runs 5]

Ours: copy the task's agent catalog (views over read-only Parquet) into a fresh workdir
and link the data. The paper's way: a DuckDB file with the task's tables materialized,
copied whole into each run's workdir. Both are timed here, on the same source, for one
standard task; targets: at least 100x less time and 1000x fewer bytes per run. Also
printed: the one-time cost of ground truth for every task, of the agent catalogs, and
of each perturbed schema. ``--home`` keeps the source between invocations.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import duckdb

from m4bench.concepts.build import build_concepts
from m4bench.home import DataHome
from m4bench.provision.agent_catalog import load_catalog_manifest, provision_run_database
from m4bench.provision.ground_truth import build_ground_truth, representatives
from m4bench.provision.layout import task_catalog_paths
from m4bench.provision.perturb import build_obfuscated, build_restructured, ensure_mapping
from m4bench.provision.provisioner import setup
from m4bench.provision.relations import native_view
from m4bench.sources.layout import Source, list_source_names, load_source
from m4bench.sources.synth.mimic_iv import synthesize_mimic_iv
from m4bench.tasks.catalog import load_catalog

TASK = "mimic-sofa-24h"


def timed(action: Callable[[], object]) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def source_for(home: DataHome, scale: float, seed: int) -> Source:
    name = f"bench-provision-{scale:g}-{seed}"
    if name in list_source_names(home):
        return load_source(home, name)
    return synthesize_mimic_iv(home, name, scale=scale, seed=seed, progress=True)


def materialized_database(source: Source, home: DataHome, target: Path) -> None:
    """The paper's agent database: every allowed relation copied into one DuckDB file."""
    paths = task_catalog_paths(home, source.name, "native", TASK)
    relations = load_catalog_manifest(paths).relations
    files = native_view(source).files
    con = duckdb.connect(str(target))
    try:
        for schema_name in sorted({name.split(".", 1)[0] for name in relations}):
            con.execute(f'CREATE SCHEMA "{schema_name}"')
        for name in sorted(relations):
            schema_name, table = name.split(".", 1)
            con.execute(
                f'CREATE TABLE "{schema_name}"."{table}" AS '
                f"SELECT * FROM read_parquet('{files[name]}')"
            )
        con.execute("CHECKPOINT")
    finally:
        con.close()


def per_run(home: DataHome, source: Source, scratch: Path, runs: int) -> None:
    paths = task_catalog_paths(home, source.name, "native", TASK)
    full = scratch / "paper-task.duckdb"
    build_s = timed(lambda: materialized_database(source, home, full))
    ours, theirs = [], []
    for index in range(runs):
        ours.append(timed(lambda i=index: provision_run_database(paths.root, scratch / f"o{i}")))
        target = scratch / f"p{index}"
        target.mkdir()
        theirs.append(timed(lambda t=target: shutil.copy(full, t / "agent.duckdb")))
        shutil.rmtree(target)
    ours_s, theirs_s = statistics.median(ours), statistics.median(theirs)
    ours_b, theirs_b = paths.catalog.stat().st_size, full.stat().st_size
    print(f"\nper run ({TASK}, median of {runs}):")
    print(f"  ours   {ours_s * 1000:10.2f} ms  {ours_b:>14,} bytes")
    print(
        f"  paper  {theirs_s * 1000:10.2f} ms  {theirs_b:>14,} bytes "
        f"(building that file once: {build_s:.1f} s)"
    )
    print(
        f"  ratio  {theirs_s / ours_s:10.0f}x time  {theirs_b / ours_b:>13,.0f}x bytes "
        "(targets: 100x, 1000x)"
    )


def one_time(home: DataHome, source: Source) -> None:
    tasks = [t for t in load_catalog().tasks if t.card.dataset == "mimic-iv"]
    truth_s = timed(
        lambda: [build_ground_truth(home, source, t, force=True) for t in representatives(tasks)]
    )
    print(f"ground truth, {len(representatives(tasks))} references: {truth_s:.1f} s")
    catalogs_s = timed(lambda: setup(home, source.name, None, "native", progress=False))
    print(
        f"native agent catalogs for {len(tasks)} tasks: {catalogs_s:.1f} s "
        "(one setup call; concepts and ground truth already current)"
    )
    view = native_view(source)
    mapping = ensure_mapping(home, source.name, view)
    started = time.perf_counter()
    obfuscated = build_obfuscated(home, source.name, view, mapping, progress=True)
    print(
        f"obfuscated schema: {time.perf_counter() - started:.1f} s, "
        f"{sum(e.bytes for e in obfuscated.tables.values()):,} bytes"
    )
    started = time.perf_counter()
    restructured = build_restructured(home, source.name, view, mapping, obfuscated, True)
    merged = {e.path for e in restructured.tables.values()} - {
        e.path for e in obfuscated.tables.values()
    }
    merged_bytes = sum(e.bytes for e in restructured.tables.values() if e.path in merged)
    print(
        f"restructured schema: {time.perf_counter() - started:.1f} s, "
        f"{merged_bytes:,} new bytes (other tables shared with obfuscated)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=0.1)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--home", type=Path, default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        home = DataHome(args.home.resolve() if args.home else Path(tmp) / "home")
        source = source_for(home, args.scale, args.seed)
        concepts_s = timed(lambda: build_concepts(source, jobs=2, progress=True))
        print(
            f"source {source.name}: {sum(e.rows for e in source.manifest.tables.values()):,} "
            f"rows; concepts {concepts_s:.1f} s"
        )
        one_time(home, source)
        per_run(home, source, Path(tmp), args.runs)


if __name__ == "__main__":
    main()
