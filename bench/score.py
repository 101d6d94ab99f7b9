"""Scorer speed and memory at urine-output-rate scale, against a plain pandas merge.

Builds a 4 M-row truth shaped like the urine-output-rate task (key stay_id +
charttime, 11 numeric scored columns, tolerance 0.01) and an agent output with
realistic disagreements (missing, extra and duplicate rows, ISO ``T`` timestamps,
values off by more than the tolerance, blanks, text in numeric cells). Each scorer
runs in its own process so its peak resident memory is its own.

Run: .venv/bin/python bench/score.py [--rows N] [--memory-limit-mb MB] [--threads T]
                                     [--repeat K]
With --repeat K each scorer runs K times, alternating, and the ratios use the medians
(on a shared machine one run of each can be off by 10 %).
Needs pandas for the comparison, which is not a project dependency:
    .venv/bin/pip install pandas
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import duckdb

from m4bench.provision.ground_truth import write_truth_file
from m4bench.scoring.options import ScoreOptions

KEYS = ["stay_id", "charttime"]
VALUES = [
    "uo_mlkghr_6hr",
    "uo_mlkghr_12hr",
    "uo_mlkghr_24hr",
    "urineoutput_6hr",
    "urineoutput_12hr",
    "urineoutput_24hr",
]
EXTRA_SCORED = ["weight", "uo", "uo_tm_6hr", "uo_tm_12hr", "uo_tm_24hr"]
SCORED = VALUES + EXTRA_SCORED
TOLERANCE = 0.01


def spec_json() -> str:
    return json.dumps(
        {
            "key_columns": KEYS,
            "value_columns": VALUES,
            "required_columns": KEYS + SCORED,
            "scored_columns": SCORED,
            "tolerance": dict.fromkeys(SCORED, TOLERANCE),
            "row_coverage_threshold": 0.95,
            "accuracy_threshold": 1.0,
        }
    )


def build(folder: Path, rows: int) -> tuple[Path, Path]:
    """Write truth.parquet and output.csv (seeded, so every run sees the same data)."""
    truth, output = folder / "truth.parquet", folder / "output.csv"
    # One thread: random() after setseed() repeats its sequence only when not shared.
    con = duckdb.connect(config={"threads": "1"})
    con.execute("SELECT setseed(0.42)")
    values = ", ".join(
        f"round(random() * {scale}, 4) AS {name}"
        for name, scale in zip(SCORED, [5, 5, 5, 900, 1800, 3600, 120, 300, 6, 12, 24], strict=True)
    )
    con.execute(
        f"CREATE TABLE t AS SELECT 30000000 + i // 60 AS stay_id, "
        f"TIMESTAMP '2150-01-01' + to_hours(i % 60) + to_days(i // 60 % 300) AS charttime, "
        f"{values} FROM range({rows}) r(i)"
    )
    # Written as provisioning writes a ground truth, footer facts included.
    write_truth_file(con.execute("SELECT * FROM t").fetch_arrow_table(), truth, KEYS)
    agent_values = ", ".join(_agent_value(name, index) for index, name in enumerate(SCORED))
    con.execute(
        "CREATE TABLE a AS SELECT CAST(stay_id AS VARCHAR) AS stay_id, "
        "CASE WHEN random() < 0.3 THEN strftime(charttime, '%Y-%m-%dT%H:%M:%S') "
        "ELSE CAST(charttime AS VARCHAR) END AS charttime, "
        f"{agent_values} FROM t WHERE random() > 0.02"
    )
    con.execute("INSERT INTO a SELECT * FROM a USING SAMPLE 0.5 PERCENT (bernoulli, 7)")
    con.execute(
        "INSERT INTO a SELECT CAST(CAST(stay_id AS BIGINT) + 90000000 AS VARCHAR), charttime, "
        "* EXCLUDE (stay_id, charttime) FROM a USING SAMPLE 1 PERCENT (bernoulli, 8)"
    )
    con.execute(f"COPY (SELECT * FROM a ORDER BY random()) TO '{output}' (HEADER, DELIMITER ',')")
    return truth, output


def _agent_value(name: str, index: int) -> str:
    """Mostly exact; some off by 0.5, some blank, a few text cells, some off by rounding."""
    return (
        f"CASE WHEN random() < 0.01 THEN NULL "
        f"WHEN random() < 0.001 THEN 'n/a' "
        f"WHEN random() < 0.03 THEN CAST({name} + 0.5 AS VARCHAR) "
        f"WHEN random() < {0.02 + index / 200} THEN CAST(round({name}, 2) AS VARCHAR) "
        f"ELSE CAST({name} AS VARCHAR) END AS {name}"
    )


def run_ours(truth: Path, output: Path, options: ScoreOptions) -> dict[str, object]:
    from m4bench.scoring import score_output
    from m4bench.tasks.evaluation import EvaluationSpec

    spec = EvaluationSpec.model_validate_json(spec_json())
    score = score_output(spec, truth, output, options=options)
    return {"reward": score.reward, "matched": [c.matched for c in score.columns]}


def run_pandas(truth: Path, output: Path) -> dict[str, object]:
    """The same rule the straightforward way: read, type keys, dedupe, merge, compare."""
    import pandas as pd

    gt = pd.read_parquet(truth)
    agent = pd.read_csv(output, dtype=str, keep_default_na=False, na_values=[""])
    agent["stay_id"] = pd.to_numeric(agent["stay_id"], errors="coerce").astype("Int64")
    agent["charttime"] = pd.to_datetime(agent["charttime"], errors="coerce", format="ISO8601")
    unique = agent.drop_duplicates(subset=KEYS, keep="first")
    duplicates = len(agent) - len(unique)
    merged = gt.merge(unique, on=KEYS, how="left", suffixes=("_truth", "_agent"), indicator=True)
    present = merged["_merge"] == "both"
    extra = len(unique) - int(present.sum())
    denominator = len(gt) + extra + duplicates
    matched = []
    for name in SCORED:
        t = merged[f"{name}_truth"]
        cell = merged[f"{name}_agent"]
        a = pd.to_numeric(cell, errors="coerce")
        agree = ((t - a).abs() <= TOLERANCE * (1 + 1e-9)).fillna(False)
        both_null = t.isna() & cell.isna()
        matched.append(int((present & (agree | both_null)).sum()))
    rates = [round(m / denominator, 8) for m in matched]
    return {"reward": round(sum(rates) / len(rates), 8), "matched": matched}


def _child(which: str, truth: Path, output: Path, options: ScoreOptions) -> None:
    if which == "ours":
        import m4bench.scoring  # noqa: F401  (imports are not timed, for either side)
    else:
        import pandas  # noqa: F401
    start, cpu = time.perf_counter(), time.process_time()
    result = run_ours(truth, output, options) if which == "ours" else run_pandas(truth, output)
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    peak_mib = _peak_mib()
    print(json.dumps({"seconds": elapsed, "cpu_seconds": cpu, "peak_mib": peak_mib, **result}))


def _peak_mib() -> float:
    """Peak resident memory of this process image.

    ``ru_maxrss`` survives ``execve`` on Linux, so a child started by the parent (which
    held the whole generated data set while building it) would report the parent's
    peak. ``VmHWM`` belongs to the current address space and starts afresh at exec.
    """
    status = Path("/proc/self/status")
    if status.exists():
        for line in status.read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _measure(which: str, truth: Path, output: Path, options: ScoreOptions) -> dict[str, object]:
    command = [sys.executable, __file__, "--child", which, str(truth), str(output)]
    limits = ["--memory-limit-mb", str(options.memory_limit_mb), "--threads", str(options.threads)]
    done = subprocess.run(
        [*command, *limits],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"{which} scorer failed:\n{done.stderr}")
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=4_000_000)
    parser.add_argument(
        "--memory-limit-mb",
        type=int,
        default=ScoreOptions().memory_limit_mb,
        help="the scorer's memory limit; the join runs in passes when its hash table "
        "would pass half of it (2048 scores the default bench output in one pass)",
    )
    parser.add_argument(
        "--threads",
        type=int,
        default=ScoreOptions().threads,
        help="the scorer's DuckDB threads (pandas uses one core whatever this says)",
    )
    parser.add_argument("--repeat", type=int, default=1, help="runs of each scorer")
    parser.add_argument("--child", nargs=3, metavar=("WHICH", "TRUTH", "OUTPUT"))
    args = parser.parse_args()
    options = ScoreOptions(memory_limit_mb=args.memory_limit_mb, threads=args.threads)
    if args.child:
        _child(args.child[0], Path(args.child[1]), Path(args.child[2]), options)
        return
    try:
        import pandas  # noqa: F401
    except ImportError:
        raise SystemExit(
            "pandas is needed for the comparison: .venv/bin/pip install pandas"
        ) from None
    runs: dict[str, list[dict[str, object]]] = {"m4bench": [], "pandas": []}
    with tempfile.TemporaryDirectory(prefix="m4bench-bench-score-") as folder:
        start = time.perf_counter()
        truth, output = build(Path(folder), args.rows)
        size_mib = output.stat().st_size / 1024**2
        print(
            f"built {args.rows:,} truth rows, output {size_mib:.0f} MiB "
            f"in {time.perf_counter() - start:.1f} s"
        )
        for _ in range(max(1, args.repeat)):
            runs["m4bench"].append(_measure("ours", truth, output, options))
            runs["pandas"].append(_measure("pandas", truth, output, options))
    _report(runs)


def _report(runs: dict[str, list[dict[str, object]]]) -> None:
    """Each run, then the ratios of the medians (and of the highest peaks)."""
    summary: dict[str, dict[str, float]] = {}
    for label, results in runs.items():
        for result in results:
            print(
                f"{label:8} {_num(result, 'seconds'):7.2f} s wall  "
                f"{_num(result, 'cpu_seconds'):7.2f} s cpu  "
                f"peak {_num(result, 'peak_mib'):7.0f} MiB  reward {result['reward']}"
            )
        summary[label] = {
            "seconds": statistics.median(_num(r, "seconds") for r in results),
            "cpu_seconds": statistics.median(_num(r, "cpu_seconds") for r in results),
            "peak_mib": max(_num(r, "peak_mib") for r in results),
        }
    ours, theirs = summary["m4bench"], summary["pandas"]
    speed = theirs["seconds"] / ours["seconds"]
    cpu = theirs["cpu_seconds"] / ours["cpu_seconds"]
    memory = ours["peak_mib"] / theirs["peak_mib"]
    which = "medians" if len(runs["m4bench"]) > 1 else "one run each"
    print(
        f"speed-up {speed:.1f}x wall, {cpu:.1f}x cpu (target >= 10x, {which}); "
        f"memory ratio {memory:.2f} (target <= 0.25); "
        f"ours under 10 s: {ours['seconds'] < 10}"
    )
    same = all(r["matched"] == runs["pandas"][0]["matched"] for r in runs["m4bench"])
    print(f"same matched counts: {same}")
    print(f"load average while measuring: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


def _num(result: dict[str, object], name: str) -> float:
    value = result[name]
    assert isinstance(value, int | float)
    return float(value)


if __name__ == "__main__":
    main()
