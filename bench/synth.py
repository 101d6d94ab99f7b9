"""Speed and memory of the synthetic generators.

Builds MIMIC-IV (and eICU, when its generator is present) at --scale 0.01 and 0.1,
each in a fresh child process so peak memory is measured per build, and prints
seconds, rows, rows/s and peak RSS next to the targets (0.1 MIMIC-IV: <= 120 s,
<= 4 GiB).

    .venv/bin/python bench/synth.py [--scales 0.01 0.1] [--dataset mimic-iv eicu]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
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
started = time.perf_counter()
if dataset == "mimic-iv":
    from m4bench.sources.synth.mimic_iv import synthesize_mimic_iv as build
else:
    from m4bench.sources.synth.eicu import synthesize_eicu as build
source = build(DataHome(root), "bench", scale=scale, seed=0, progress=False)
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


def run(dataset: str, scale: float, profile: bool = False) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as tmp:
        before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        out = subprocess.run(
            [sys.executable, "-c", _CHILD, dataset, str(scale), tmp, "profile" if profile else ""],
            check=True, capture_output=True, text=True,
        )  # fmt: skip
        peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    result: dict[str, object] = json.loads(out.stdout.strip().splitlines()[-1])
    result["peak_gib"] = max(peak_kib, before) / 2**20
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--scales", nargs="+", type=float, default=[0.01, 0.1])
    parser.add_argument("--dataset", nargs="+", default=["mimic-iv", "eicu"])
    parser.add_argument(
        "--profile", action="store_true", help="also time `m4bench data profile` on each build"
    )
    args = parser.parse_args()
    header = f"{'dataset':<9} {'scale':>6} {'seconds':>8} {'rows':>12} {'rows/s':>10}"
    header += f" {'peak GiB':>9}"
    print(f"{header}  biggest table")
    for dataset in args.dataset:
        if dataset == "eicu" and importlib.util.find_spec("m4bench.sources.synth.eicu") is None:
            print("eicu      (generator not present; skipped)")
            continue
        for scale in args.scales:
            started = time.perf_counter()
            r = run(dataset, scale, args.profile)
            seconds = float(r["seconds"])  # type: ignore[arg-type]
            rows = int(r["rows"])  # type: ignore[call-overload]
            peak = float(r["peak_gib"])  # type: ignore[arg-type]
            biggest = r["biggest"]
            print(
                f"{dataset:<9} {scale:>6} {seconds:>8.1f} {rows:>12,} {rows / seconds:>10,.0f}"
                f" {peak:>9.2f}  {biggest}  (wall {time.perf_counter() - started:.1f} s)"
            )
            if dataset == "eicu":
                print_eicu_cardinalities(r, scale)
            if r.get("profile_seconds") is not None:
                took = float(r["profile_seconds"])  # type: ignore[arg-type]
                print(f"  profile: {took:.1f} s, {rows / took:,.0f} rows/s")
            if dataset == "mimic-iv" and scale == 0.1:
                print(
                    f"  target: <= {TARGET_SECONDS:.0f} s and <= {TARGET_GIB:.0f} GiB -> "
                    f"time x{seconds / TARGET_SECONDS:.2f}, "
                    f"memory x{peak / TARGET_GIB:.2f} of the budget"
                )


# eICU-CRD v2.0 row counts of the tables the eICU tasks read (eicu-code checks).
EICU_REAL_ROWS = {
    "patient": 200_859,
    "nursecharting": 151_604_232,
    "vitalperiodic": 146_671_642,
    "lab": 39_132_531,
    "intakeoutput": 12_030_289,
    "physicalexam": 9_212_316,
    "respiratorycare": 865_381,
    "apacheapsvar": 171_177,
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
    if scale == 0.1:
        print(
            f"  eICU 10 % against the MIMIC-IV budget ({TARGET_SECONDS:.0f} s, "
            f"{TARGET_GIB:.0f} GiB): time x{seconds / TARGET_SECONDS:.2f}, "
            f"memory x{float(result['peak_gib']) / TARGET_GIB:.2f}"
        )  # type: ignore[arg-type]


if __name__ == "__main__":
    main()
