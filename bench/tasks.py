"""Time every task's reference query on a synthetic MIMIC-IV source, side by side with the
time to build the concepts it needs (both measured in this run); eICU tasks run on a
synthetic eICU source of the same size, side by side with the time to generate it.

    .venv/bin/python bench/tasks.py [--stays 1000] [--seed 7]

The ratio column is reference time / concept build time (eICU: / source generation time):
the reference should be a thin layer over the concept library, so it stays well below 1
for every task.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from m4bench.concepts.build import build_concepts
from m4bench.home import DataHome
from m4bench.sources.synth.eicu import synthesize_eicu
from m4bench.sources.synth.mimic_iv import synthesize_mimic_iv
from m4bench.tasks.catalog import load_catalog
from m4bench.tasks.reference import run_reference


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stays", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    catalog = load_catalog()
    with tempfile.TemporaryDirectory() as tmp:
        home = DataHome(Path(tmp))
        source = synthesize_mimic_iv(home, stays=args.stays, seed=args.seed, progress=False)
        needed = sorted({dep for task in catalog.tasks for dep in task.direct_dependencies})
        started = time.perf_counter()
        build_concepts(source, only=needed, progress=False)
        concepts_s = time.perf_counter() - started
        print(f"{args.stays} stays; concepts for all tasks built in {concepts_s:.2f} s")
        print(f"{'task':38} {'rows':>9} {'reference s':>12} {'ratio':>7}")
        con = source.connect(read_only=True)
        try:
            for task in (t for t in catalog.tasks if t.card.dataset == "mimic-iv"):
                started = time.perf_counter()
                table = run_reference(task, con)
                elapsed = time.perf_counter() - started
                ratio = elapsed / concepts_s
                print(f"{task.name:38} {table.num_rows:>9} {elapsed:>12.3f} {ratio:>7.3f}")
        finally:
            con.close()
        started = time.perf_counter()
        eicu = synthesize_eicu(home, stays=args.stays, seed=args.seed, progress=False)
        generate_s = time.perf_counter() - started
        print(f"{args.stays} eICU stays generated in {generate_s:.2f} s")
        con = eicu.connect(read_only=True)
        try:
            for task in (t for t in catalog.tasks if t.card.dataset == "eicu"):
                started = time.perf_counter()
                table = run_reference(task, con)
                elapsed = time.perf_counter() - started
                ratio = elapsed / generate_s
                print(f"{task.name:38} {table.num_rows:>9} {elapsed:>12.3f} {ratio:>7.3f}")
        finally:
            con.close()


if __name__ == "__main__":
    main()
