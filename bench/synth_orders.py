"""What the order tables cost the synthetic MIMIC-IV build.

Builds MIMIC-IV at --scale 0.1 (by default) twice, each in a fresh child process: once
as shipped, once with the poe / poe_detail / emar / emar_detail / ingredientevents
builders replaced by empty tables. Prints seconds, rows of those tables, their share of
the build and the peak memory of each side. The target: the order tables add at most
30 s at scale 0.1 on the 2-core reference machine.

    .venv/bin/python bench/synth_orders.py [--scale 0.1]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

TARGET_SECONDS = 30.0
ORDER_TABLES = (
    "mimiciv_hosp.poe",
    "mimiciv_hosp.poe_detail",
    "mimiciv_hosp.emar",
    "mimiciv_hosp.emar_detail",
    "mimiciv_icu.ingredientevents",
)

_CHILD = """
import json, resource, sys, time
from pathlib import Path
import numpy as np
import m4bench.sources.synth.mimic_iv as m
from m4bench.home import DataHome
scale, root, without = float(sys.argv[1]), Path(sys.argv[2]), sys.argv[3] == "without"
if without:
    m._write_medication_orders = lambda *args, **kwargs: None
    m._order_chunk = lambda *args, **kwargs: None
    m.ingredientevents_chunk = lambda *args, **kwargs: {"orderid": np.zeros(0, np.int64)}
started = time.perf_counter()
source = m.synthesize_mimic_iv(DataHome(root), "bench", scale=scale, seed=0, progress=False)
seconds = time.perf_counter() - started
rows = {q: t.rows for q, t in source.manifest.tables.items()}
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
print(json.dumps({"seconds": seconds, "rows": rows, "peak_gib": peak}))
"""


def _build(scale: float, without: bool) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as tmp:
        args = [str(scale), tmp, "without" if without else "with"]
        done = subprocess.run(
            [sys.executable, "-c", _CHILD, *args], check=True, capture_output=True, text=True
        )
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=0.1)
    scale = parser.parse_args().scale
    load = os.getloadavg()[0]
    without = _build(scale, without=True)
    shipped = _build(scale, without=False)
    rows = shipped["rows"]
    assert isinstance(rows, dict)
    order_rows = sum(int(rows[t]) for t in ORDER_TABLES)
    extra = float(shipped["seconds"]) - float(without["seconds"])  # type: ignore[arg-type]
    print(f"MIMIC-IV --scale {scale} (load average before: {load:.1f})")
    for table in ORDER_TABLES:
        print(f"  {table:32s} {int(rows[table]):>12,} rows")
    print(
        f"  without the order tables: {float(without['seconds']):7.1f} s  "  # type: ignore[arg-type]
        f"peak {float(without['peak_gib']):.2f} GiB"
    )  # type: ignore[arg-type]
    print(
        f"  with the order tables:    {float(shipped['seconds']):7.1f} s  "  # type: ignore[arg-type]
        f"peak {float(shipped['peak_gib']):.2f} GiB"
    )  # type: ignore[arg-type]
    print(f"  order tables: {order_rows:,} rows in {extra:.1f} s "
          f"({order_rows / max(extra, 1e-9):,.0f} rows/s); "
          f"{extra / TARGET_SECONDS:.2f} x the {TARGET_SECONDS:.0f} s target")  # fmt: skip


if __name__ == "__main__":
    main()
