"""Speed and memory of the synthetic generators.

Builds MIMIC-IV (and eICU, when its generator is present) at --scale 0.01 and 0.1,
each in a fresh child process so peak memory is measured per build, and prints
seconds, rows, rows/s and peak memory next to the targets (0.1 MIMIC-IV: <= 120 s,
<= 4 GiB). Peak memory is the largest sum of the resident sets of the build process
and its worker processes, sampled every 0.2 s. The load average before and after each
build is printed: other jobs on the machine slow a build down.

    .venv/bin/python bench/synth.py [--scales 0.01 0.1] [--dataset mimic-iv eicu]
                                    [--workers 1 2]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

TARGET_SECONDS = 120.0
TARGET_GIB = 4.0

_CHILD = """
import json, sys, time
from pathlib import Path
from m4bench.home import DataHome
dataset, scale, root = sys.argv[1], float(sys.argv[2]), Path(sys.argv[3])
workers = int(sys.argv[5])
started = time.perf_counter()
if dataset == "mimic-iv":
    from m4bench.sources.synth.mimic_iv import synthesize_mimic_iv as build
else:
    from m4bench.sources.synth.eicu import synthesize_eicu as build
source = build(DataHome(root), "bench", scale=scale, seed=0, progress=False, workers=workers)
seconds = time.perf_counter() - started
rows = sum(t.rows for t in source.manifest.tables.values())
biggest = max(source.manifest.tables.items(), key=lambda kv: kv[1].rows)
tables = {q: t.rows for q, t in source.manifest.tables.items()}
profile_seconds = None
if len(sys.argv) > 4 and sys.argv[4] == "profile":
    from m4bench.sources.profile import profile_source
    profiled = time.perf_counter()
    profile_source(source)
    profile_seconds = time.perf_counter() - profiled
print(json.dumps({"seconds": seconds, "rows": rows, "biggest": [biggest[0], biggest[1].rows],
                  "tables": tables, "profile_seconds": profile_seconds}))
"""


def _tree_rss_kib(pid: int) -> int:
    """Resident memory of a process and all its descendants (Linux /proc), in KiB."""
    total, todo = 0, [pid]
    while todo:
        current = todo.pop()
        try:
            with open(f"/proc/{current}/status") as status:
                total += next(
                    (int(line.split()[1]) for line in status if line.startswith("VmRSS:")), 0
                )
            for task in os.listdir(f"/proc/{current}/task"):
                with open(f"/proc/{current}/task/{task}/children") as children:
                    todo.extend(int(c) for c in children.read().split())
        except (OSError, ValueError):
            continue
    return total


def run(dataset: str, scale: float, profile: bool = False, workers: int = 1) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as tmp:
        before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        args = [dataset, str(scale), tmp, "profile" if profile else "-", str(workers)]
        with subprocess.Popen(
            [sys.executable, "-c", _CHILD, *args], stdout=subprocess.PIPE, text=True
        ) as child:
            tree_peak = 0
            while child.poll() is None:
                tree_peak = max(tree_peak, _tree_rss_kib(child.pid))
                time.sleep(0.2)
            out = child.stdout.read() if child.stdout else ""
        if child.returncode != 0:
            raise SystemExit(f"{dataset} at scale {scale} failed (exit {child.returncode})")
        peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    result: dict[str, object] = json.loads(out.strip().splitlines()[-1])
    result["peak_gib"] = max(peak_kib if peak_kib > before else 0, tree_peak) / 2**20
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--scales", nargs="+", type=float, default=[0.01, 0.1])
    parser.add_argument("--dataset", nargs="+", default=["mimic-iv", "eicu"])
    parser.add_argument(
        "--profile", action="store_true", help="also time `m4bench data profile` on each build"
    )
    parser.add_argument(
        "--workers", nargs="+", type=int, default=[1], help="worker counts to compare"
    )
    args = parser.parse_args()
    header = f"{'dataset':<9} {'scale':>6} {'wk':>3} {'seconds':>8} {'rows':>12} {'rows/s':>10}"
    header += f" {'peak GiB':>9}"
    print(f"{header}  biggest table  (load average before -> after)")
    for dataset in args.dataset:
        for workers in args.workers:
            _bench_dataset(dataset, args.scales, args.profile, workers)


def _bench_dataset(dataset: str, scales: list[float], profile: bool, workers: int) -> None:
    if dataset == "eicu" and importlib.util.find_spec("m4bench.sources.synth.eicu") is None:
        print("eicu      (generator not present; skipped)")
        return
    for scale in scales:
        started = time.perf_counter()
        load_before = os.getloadavg()[0]
        r = run(dataset, scale, profile, workers)
        seconds = float(r["seconds"])  # type: ignore[arg-type]
        rows = int(r["rows"])  # type: ignore[call-overload]
        peak = float(r["peak_gib"])  # type: ignore[arg-type]
        tables: dict[str, int] = r["tables"]  # type: ignore[assignment]
        print(
            f"{dataset:<9} {scale:>6} {workers:>3} {seconds:>8.1f} {rows:>12,}"
            f" {rows / seconds:>10,.0f} {peak:>9.2f}  {r['biggest']}"
            f"  (load {load_before:.1f} -> {os.getloadavg()[0]:.1f};"
            f" wall {time.perf_counter() - started:.1f} s)"
        )
        if dataset == "eicu":
            print_eicu_cardinalities(r, scale)
        else:
            print_mimic_volume(tables, scale)
        if r.get("profile_seconds") is not None:
            took = float(r["profile_seconds"])  # type: ignore[arg-type]
            print(f"  profile: {took:.1f} s, {rows / took:,.0f} rows/s")
        if dataset == "mimic-iv" and scale == 0.1:
            print(
                f"  target: <= {TARGET_SECONDS:.0f} s and <= {TARGET_GIB:.0f} GiB -> "
                f"time x{seconds / TARGET_SECONDS:.2f}, "
                f"memory x{peak / TARGET_GIB:.2f} of the budget"
            )


# MIMIC-IV v3.1 rows over ICU stays of the big event tables (real counts / 94,458 stays;
# labevents also holds the ward and outpatient rows).
MIMIC_REAL_PER_STAY = {
    "chartevents": 4_584,
    "labevents": 1_677,
    "inputevents": 116,
    "outputevents": 57,
    "procedureevents": 9,
    "datetimeevents": 106,
}


def print_mimic_volume(tables: dict[str, int], scale: float) -> None:
    """Synthetic rows per ICU stay against the real ones."""
    stays = tables.get("mimiciv_icu.icustays", 0) or 1
    ratios = []
    for name, real in MIMIC_REAL_PER_STAY.items():
        rows = next((n for q, n in tables.items() if q.endswith("." + name)), 0)
        ratios.append(
            f"{name} {rows / stays:,.0f}/stay (real {real:,}, x{rows / stays / real:.2f})"
        )
    print(f"  MIMIC-IV rows per stay at scale {scale}: " + ", ".join(ratios))


# eICU-CRD v2.0 row counts of the tables the eICU tasks read and of the other large
# tables (eicu-code checks).
EICU_REAL_ROWS = {
    "patient": 200_859,
    "nursecharting": 151_604_232,
    "vitalperiodic": 146_671_642,
    "lab": 39_132_531,
    "intakeoutput": 12_030_289,
    "physicalexam": 9_212_316,
    "respiratorycare": 865_381,
    "apacheapsvar": 171_177,
    "vitalaperiodic": 25_075_074,
    "respiratorycharting": 20_168_176,
    "nurseassessment": 15_602_498,
    "nursecare": 8_311_132,
    "medication": 7_301_853,
    "infusiondrug": 4_803_719,
    "treatment": 3_688_745,
    "careplangeneral": 3_115_018,
    "diagnosis": 2_710_672,
    "note": 2_254_179,
    "pasthistory": 1_149_180,
    "admissiondrug": 874_920,
    "careplangoal": 504_139,
    "careplancareprovider": 502_765,
}


def print_eicu_cardinalities(result: dict[str, object], scale: float) -> None:
    """Synthetic rows over the real rows scaled to the same size, per task table."""
    tables: dict[str, int] = result.get("tables", {})  # type: ignore[assignment]
    ratios = [
        f"{name} x{tables.get('eicu_crd.' + name, 0) / (real * scale):.2f}"
        for name, real in EICU_REAL_ROWS.items()
    ]
    print("  eICU rows vs real at this scale: " + ", ".join(ratios))
    seconds = float(result["seconds"])  # type: ignore[arg-type]
    peak = float(result["peak_gib"])  # type: ignore[arg-type]
    if scale == 0.1:
        print(
            f"  eICU 10 % against the MIMIC-IV budget ({TARGET_SECONDS:.0f} s, "
            f"{TARGET_GIB:.0f} GiB): time x{seconds / TARGET_SECONDS:.2f}, "
            f"memory x{peak / TARGET_GIB:.2f}"
        )


if __name__ == "__main__":
    main()
