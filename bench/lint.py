"""Time the catalog lint (``m4bench tasks lint``, references run and not) of this tree
side by side with the same lint at an earlier commit, in one run.

    .venv/bin/python bench/lint.py [--before COMMIT] [--repeat 3]

The earlier commit's ``src/`` is unpacked with ``git archive`` into a temporary folder
and each lint runs in a fresh interpreter, so both sides pay the same imports; the
figure is the process CPU time of the lint call alone (best of ``--repeat``). The
ratio column is after / before.
"""

from __future__ import annotations

import argparse
import io
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROBE = """
import sys, time
from m4bench.tasks.lint import lint_catalog
run = sys.argv[1] == "run"
started = time.process_time()
lint_catalog(extra_roots=(), run_references=run)
print(time.process_time() - started)
"""


def unpack_src(commit: str, into: Path) -> Path:
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", commit, "src"],
        check=True,
        capture_output=True,
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into / "src"


def lint_seconds(src: Path, mode: str, repeat: int) -> float:
    env = {"PYTHONPATH": str(src), "PATH": "/usr/bin:/bin"}
    times = []
    for _ in range(repeat):
        done = subprocess.run(
            [sys.executable, "-c", PROBE, mode], check=True, capture_output=True, env=env
        )
        times.append(float(done.stdout.decode().split()[-1]))
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default="cbee0fa", help="the commit to compare with")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        before_src = unpack_src(args.before, Path(tmp))
        print(f"{'lint':24} {'before s':>9} {'after s':>9} {'ratio':>7}")
        for mode, label in (("run", "references run"), ("no-run", "--no-run")):
            before = lint_seconds(before_src, mode, args.repeat)
            after = lint_seconds(ROOT / "src", mode, args.repeat)
            print(f"{label:24} {before:>9.2f} {after:>9.2f} {after / before:>7.2f}")


if __name__ == "__main__":
    main()
