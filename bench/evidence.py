"""Packaging speed: scores-only sanitization against keeping full outputs, side by side.

    python bench/evidence.py [--runs N] [--rows R]

Builds a campaign results directory of N runs, each with an R-row output and a trace
of R/4 JSON lines (SQL, tool output tables, identifiers, times), then packages it twice
(``--outputs full`` for a public source, ``scores-only``) and verifies each package.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

from m4bench.campaign.store import plan_sha256
from m4bench.evidence import PackageOptions, package_results, verify_package
from m4bench.fileio import sha256_file, write_model
from m4bench.home import DataHome
from m4bench.results import Cell, PlannedRun, ResultRecord
from m4bench.results.campaign_files import AttemptRecord, CampaignManifest
from m4bench.results.identity import spec_of
from m4bench.results.record import Artifact, SandboxRecord, Versions
from m4bench.sources.layout import SourceLayout, SourceManifest

TASK = "mimic-sofa-24h"
HEADER = "subject_id,hadm_id,stay_id,sofa,respiration,coagulation,liver,cardiovascular,cns,renal"


def _output(rows: int, seed: int) -> str:
    lines = [HEADER]
    for i in range(rows):
        s = 10_000_000 + seed * rows + i
        lines.append(f"{s},{s + 10_000_000},{s + 20_000_000},{i % 20},0,1,2,{i % 4},0,1")
    return "\n".join(lines) + "\n"


def _trace(rows: int, seed: int) -> str:
    events = []
    for i in range(max(rows // 4, 1)):
        table = "\n".join(
            f"{30_000_000 + seed + j} | 2180-01-0{j % 9 + 1} 10:00 | 9{j}" for j in range(3)
        )
        events.append({"type": "tool", "command": "SELECT stay_id, charttime, heart_rate FROM x"})
        events.append(
            {"type": "tool_result", "output": f"stay_id | charttime | hr\n{table}", "n": i}
        )
    return "\n".join(json.dumps(e) for e in events) + "\n"


def build(root: Path, runs: int, rows: int) -> None:
    planned = []
    for trial in range(1, runs + 1):
        cell = Cell.model_validate({"task": TASK, "condition": "no-skill", "schema": "native",
                                    "agent": "oracle", "model": "m"})  # fmt: skip
        planned.append(PlannedRun(cell=cell, trial=trial, timeout_seconds=60, provider="p",
                                  prior_seconds=1))  # fmt: skip
    write_model(
        root / "campaign.json",
        CampaignManifest(profile="bench", plan_sha256=plan_sha256(planned), runs=planned),
    )
    for index, run in enumerate(planned):
        work = root / "work" / run.run_id / "attempt-1"
        work.mkdir(parents=True)
        (work / "output.csv").write_text(_output(rows, index))
        (work / "trace.jsonl").write_text(_trace(rows, index))
        artifacts = {
            name: Artifact(
                path=f"attempt-1/{name}",
                sha256=sha256_file(work / name),
                bytes=(work / name).stat().st_size,
            )
            for name in ("output.csv", "trace.jsonl")
        }
        write_model(root / "runs" / run.run_id / "result.json", _record(run, artifacts))
        done = AttemptRecord(run_id=run.run_id, attempt=1, state="finished")
        write_model(root / "runs" / run.run_id / "attempts" / "1.json", done)


def _record(run: PlannedRun, artifacts: dict[str, Artifact]) -> ResultRecord:
    spec = spec_of(run.cell, run.trial)
    return ResultRecord(
        run_id=spec.run_id, attempt=1, identity=spec, source="bench-source",
        versions=Versions(m4bench="bench", python="3.11", duckdb="1.4"),
        sandbox=SandboxRecord(backend="bwrap", isolated=True, limits={}, returncode=0),
        status="ok", reward=1.0, publishable=True, publishable_reason="isolated",
        artifacts=artifacts,
    )  # fmt: skip


def _public_home(root: Path) -> DataHome:
    home = DataHome(root)
    layout = SourceLayout(home.sources / "bench-source")
    layout.root.mkdir(parents=True)
    manifest = SourceManifest(name="bench-source", dataset="mimic-iv", dataset_version="3.1",
                              kind="synthetic", public=True)  # fmt: skip
    write_model(layout.manifest_path, manifest)
    return home


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--rows", type=int, default=2000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="m4bench-bench-evidence-") as tmp:
        root = Path(tmp)
        build(root / "results", args.runs, args.rows)
        home = _public_home(root / "home")
        timings = {}
        for mode in ("full", "scores-only"):
            out = root / f"{mode}.tar.zst"
            started = time.perf_counter()
            package_results(root / "results", out, PackageOptions(outputs=mode, home=home))  # type: ignore[arg-type]
            packed = time.perf_counter() - started
            started = time.perf_counter()
            assert verify_package(out).passed
            timings[mode] = (packed, time.perf_counter() - started, out.stat().st_size)
    print(f"{args.runs} runs x {args.rows} rows")
    for mode, (packed, verified, size) in timings.items():
        print(
            f"{mode:<12} package {packed:6.2f} s ({args.runs / packed:6.1f} runs/s)  "
            f"verify {verified:5.2f} s  {size / 1e6:6.2f} MB"
        )
    ratio = timings["scores-only"][0] / timings["full"][0]
    print(f"scores-only / full packaging time: {ratio:.2f}x; load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
