"""Loading the MIMIC-IV concept library again in one process: every concept parsed anew
(as it was) against each concept text parsed once (as it is), side by side.

    python bench/concept_library.py [--loads N]

Setup, preflight, every catalog load, the lint and the audit each load the library; a
reprovisioning of the small demo's tasks and its preflight loaded it nine times. Prints
the CPU seconds of N loads both ways, their ratio and the machine's load.
"""

from __future__ import annotations

import argparse
import os
import time

from m4bench.concepts import library as concept_library
from m4bench.concepts.library import ConceptLibrary


def _loads(count: int, parse_anew: bool) -> float:
    started = time.process_time()
    for _ in range(count):
        if parse_anew:
            concept_library._tables_of.cache_clear()
        ConceptLibrary.load("mimic-iv")
    return time.process_time() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--loads", type=int, default=9, help="loads per side (default 9)")
    args = parser.parse_args()
    ConceptLibrary.load("mimic-iv")  # imports and the first parse, outside both sides
    anew = _loads(args.loads, parse_anew=True)
    once = _loads(args.loads, parse_anew=False)
    concepts = len(ConceptLibrary.load("mimic-iv").concepts)
    print(f"{args.loads} loads of {concepts} concepts")
    print(f"{'each text parsed on every load (before)':<42}{anew:>7.2f} CPU s")
    print(f"{'each text parsed once (after)':<42}{once:>7.2f} CPU s")
    print(
        f"ratio {anew / once:.1f}x; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
    )


if __name__ == "__main__":
    main()
