"""Time, memory and volume of the synthetic MIMIC-IV administrative and coding tables.

For each scale, a fresh child process draws the cohort (patients, admissions, stays and
chronic conditions, as the generator does), then builds and writes transfers,
diagnoses_icd, procedures_icd and omr through the generator's Parquet sinks, timing each.
Prints seconds and rows per table, rows per admission against MIMIC-IV v3.1, and the
peak resident memory of the child before and after the four tables (the difference is
what they add). Targets: the four tables take <= 15 s at scale 0.1 on the 2-core
reference machine and add well under the 4 GiB budget.

    .venv/bin/python bench/synth_admin.py [--scales 0.1 1.0]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

TARGET_SECONDS_AT_0_1 = 15.0
REAL_PER_ADMISSION = {
    "transfers": 4.42,
    "diagnoses_icd": 11.66,
    "procedures_icd": 1.57,
    "omr": 14.2,
}

_CHILD = """
import json, resource, sys, tempfile, time
from pathlib import Path
import numpy as np
from m4bench.sources.schema.mimic_iv import MIMIC_IV
from m4bench.sources.synth import mimic_admin, mimic_codes
from m4bench.sources.synth.core import QuirkRates, TableSink
from m4bench.sources.synth.mimic_cohort import REAL_STAYS, build_cohort
from m4bench.sources.synth.mimic_latent import subject_conditions

def peak_gib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20

scale = float(sys.argv[1])
started = time.perf_counter()
cohort = build_cohort(0, max(1, round(REAL_STAYS * scale)), QuirkRates())
conditions = subject_conditions(0, cohort)
rng = np.random.default_rng(0)
n = len(cohort.admissions)
acute = np.zeros((n, 3), dtype=bool)
acute[cohort.stays.adm] = rng.random((len(cohort.stays), 3)) < [0.3, 0.2, 0.4]
cohort_seconds = time.perf_counter() - started
before = peak_gib()
builders = {
    "transfers": lambda: mimic_admin.transfers_table(0, cohort),
    "diagnoses_icd": lambda: mimic_codes.diagnoses_table(0, cohort, conditions, acute),
    "procedures_icd": lambda: mimic_codes.procedures_table(0, cohort, acute[:, 2]),
    "omr": lambda: mimic_codes.omr_table(0, cohort, conditions),
}
out = {"admissions": n, "cohort_seconds": cohort_seconds, "peak_before": before, "tables": {}}
with tempfile.TemporaryDirectory() as tmp:
    for name, build in builders.items():
        table = MIMIC_IV.table("mimiciv_hosp." + name)
        t0 = time.perf_counter()
        built = build()
        parts = [built] if isinstance(built, dict) else built
        with TableSink(table, Path(tmp) / (name + ".parquet")) as sink:
            for part in parts:
                sink.write(part)
        out["tables"][name] = {"seconds": time.perf_counter() - t0, "rows": sink.rows}
out["peak_after"] = peak_gib()
print(json.dumps(out))
"""


def run(scale: float) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, str(scale)], check=True, capture_output=True, text=True
    )
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def report(scale: float, result: dict[str, object], load: tuple[float, float]) -> None:
    admissions = int(result["admissions"])  # type: ignore[call-overload]
    tables: dict[str, dict[str, float]] = result["tables"]  # type: ignore[assignment]
    total = sum(t["seconds"] for t in tables.values())
    print(
        f"scale {scale}: {admissions:,} admissions, cohort {result['cohort_seconds']:.1f} s"
        f" (load average {load[0]:.1f} -> {load[1]:.1f})"
    )
    for name, t in tables.items():
        per = t["rows"] / admissions
        real = REAL_PER_ADMISSION[name]
        print(
            f"  {name:<15} {t['rows']:>12,.0f} rows {t['seconds']:>7.2f} s"
            f"   {per:6.2f} per admission (real {real}, x{per / real:.2f})"
        )
    before, after = float(result["peak_before"]), float(result["peak_after"])  # type: ignore[arg-type]
    print(f"  four tables: {total:.1f} s; peak memory {before:.2f} GiB -> {after:.2f} GiB")
    if scale == 0.1:
        print(
            f"  target <= {TARGET_SECONDS_AT_0_1:.0f} s at scale 0.1: "
            f"x{total / TARGET_SECONDS_AT_0_1:.2f} of the budget"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--scales", nargs="+", type=float, default=[0.1, 1.0])
    args = parser.parse_args()
    for scale in args.scales:
        load_before = os.getloadavg()[0]
        result = run(scale)
        report(scale, result, (load_before, os.getloadavg()[0]))


if __name__ == "__main__":
    main()
