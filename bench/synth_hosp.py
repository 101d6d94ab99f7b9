"""What the hospital tables cost in a synthetic MIMIC-IV build, and their volume.

Builds MIMIC-IV at each scale with timers around the functions that draw labevents,
microbiologyevents, prescriptions and pharmacy (and around writing those four tables),
and separately around the poe orders and emar administrations of the prescription lines.
Prints the seconds of each part next to the whole build, the share of the 35 s this
part of the generator may take at scale 0.1, and the rows per admission against
MIMIC-IV v3.1.

    .venv/bin/python bench/synth_hosp.py [--scales 0.01 0.1]
"""

from __future__ import annotations

import argparse
import functools
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from m4bench.home import DataHome
from m4bench.sources.synth import core, mimic_iv

BUDGET_SECONDS = 35.0  # these four tables at scale 0.1
REAL_PER_ADMISSION = {
    "labevents": 290.0,
    "microbiologyevents": 7.3,
    "prescriptions": 37.2,
    "pharmacy": 32.7,
    "emar": 78.0,
    "poe": 96.0,
}
MINE = ("labevents", "microbiologyevents", "prescriptions", "pharmacy")
DRAWING = {
    "labs": ("icu_labs", "ward_labs", "_write_labs"),
    "micro": ("micro_chunk", "ward_micro"),
    "prescriptions": ("prescriptions_chunk", "ward_prescriptions", "pharmacy_rows"),
    "orders+emar of the lines": ("_write_medication_orders",),
}


def _timed(spent: dict[str, float], key: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            spent[key] += time.perf_counter() - started

    return wrapper


def build(scale: float) -> tuple[float, dict[str, float], dict[str, int]]:
    """(seconds of the whole build, seconds per part, rows per table) of one build."""
    spent: dict[str, float] = defaultdict(float)
    originals = {name: getattr(mimic_iv, name) for names in DRAWING.values() for name in names}
    for part, names in DRAWING.items():
        for name in names:
            setattr(mimic_iv, name, _timed(spent, part, originals[name]))
    write = core.TableSink.write

    def timed_write(sink: core.TableSink, columns: Any) -> None:
        table = sink.table.name
        started = time.perf_counter()
        write(sink, columns)
        if table in MINE[1:]:  # labevents is written inside _write_labs, timed with the labs
            spent["writing micro, rx, pharmacy"] += time.perf_counter() - started

    core.TableSink.write = timed_write
    try:
        with tempfile.TemporaryDirectory() as tmp:
            started = time.perf_counter()
            source = mimic_iv.synthesize_mimic_iv(
                DataHome(Path(tmp)), "bench", scale=scale, progress=False
            )
            seconds = time.perf_counter() - started
            rows = {q.split(".")[1]: t.rows for q, t in source.manifest.tables.items()}
    finally:
        core.TableSink.write = write
        for name, fn in originals.items():
            setattr(mimic_iv, name, fn)
    return seconds, dict(spent), rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--scales", nargs="+", type=float, default=[0.01, 0.1])
    args = parser.parse_args()
    for scale in args.scales:
        seconds, spent, rows = build(scale)
        own = sum(v for k, v in spent.items() if k != "orders+emar of the lines")
        print(f"scale {scale}: whole build {seconds:.1f} s")
        for part, took in sorted(spent.items()):
            print(f"  {part:<26} {took:6.1f} s")
        budget = f", x{own / BUDGET_SECONDS:.2f} of its {BUDGET_SECONDS:.0f} s budget"
        share = f"{own:.1f} s ({own / seconds:.0%} of the build)"
        print(f"  the four tables: {share}{budget if scale == 0.1 else ''}")
        admissions = rows["admissions"]
        print(
            "  rows per admission: "
            + ", ".join(
                f"{t} {rows[t] / admissions:.1f} (real {r:g}, x{rows[t] / admissions / r:.2f})"
                for t, r in REAL_PER_ADMISSION.items()
            )
        )


if __name__ == "__main__":
    main()
