"""Ingest throughput on a generated MIMIC-IV chartevents file, against plain DuckDB.

Writes a ``icu/chartevents.csv.gz`` of N rows (default 5 million) shaped like the real
table (numeric and text values, '___' placeholders, empty fields, timestamps with and
without seconds), then times, on the same file and alternating, several rounds of:

* baseline: ``COPY (SELECT * FROM read_csv(file, columns=<official types>)) TO parquet``
  in one DuckDB connection, nothing else;
* m4bench: ``ingest_dataset`` of that table (header check, typed read, zstd Parquet
  written atomically, SHA-256 and gzip integrity check of the input, manifest, catalog).

It prints rows/s and MB/s (compressed input) of the best round of each, the ratio
m4bench / baseline (target >= 0.8), the ratio of medians, and the ratio of CPU time
(all threads), which holds even when other work shares the machine.

    .venv/bin/python bench/ingest.py [--rows 5000000] [--rounds 2] [--workdir DIR]
"""

from __future__ import annotations

import argparse
import resource
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import duckdb

from m4bench.home import DataHome
from m4bench.sources.ingest import ingest_dataset
from m4bench.sources.schema import MIMIC_IV
from m4bench.sql import quote_literal as sql_str

CHARTEVENTS = MIMIC_IV.table("mimiciv_icu.chartevents")


def generate(tree: Path, rows: int) -> Path:
    """The chartevents CSV (gzip) of ``rows`` rows, plus empty files for the other tables."""
    target = tree / "icu" / "chartevents.csv.gz"
    if target.exists():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    con = duckdb.connect()
    query = f"""
        SELECT 10000000 + i // 4600 AS subject_id, 20000000 + i // 4600 AS hadm_id,
               30000000 + i // 4600 AS stay_id,
               CASE WHEN i % 7 = 0 THEN NULL ELSE 1000 + i % 9000 END AS caregiver_id,
               CASE WHEN i % 5 = 0
                    THEN strftime(TIMESTAMP '2150-01-01' + INTERVAL (i) MINUTE, '%Y-%m-%d %H:%M')
                    ELSE strftime(TIMESTAMP '2150-01-01' + INTERVAL (i) MINUTE,
                                  '%Y-%m-%d %H:%M:%S') END AS charttime,
               strftime(TIMESTAMP '2150-01-01' + INTERVAL (i + 3) MINUTE,
                        '%Y-%m-%d %H:%M:%S') AS storetime,
               220045 + (i % 97) AS itemid,
               CASE WHEN i % 11 = 0 THEN 'Nasal cannula'
                    WHEN i % 13 = 0 THEN '___'
                    ELSE CAST(round(40 + (i * 7919 % 1400) / 10.0, 1) AS VARCHAR) END AS value,
               CASE WHEN i % 11 = 0 OR i % 13 = 0 THEN NULL
                    ELSE round(40 + (i * 7919 % 1400) / 10.0, 1) END AS valuenum,
               CASE WHEN i % 11 = 0 THEN NULL ELSE 'bpm' END AS valueuom,
               CASE WHEN i % 17 = 0 THEN 1 ELSE 0 END AS warning
        FROM range({rows}) AS t(i)
    """
    tmp = target.with_suffix(".tmp")
    con.execute(f"COPY ({query}) TO {sql_str(tmp)} (FORMAT CSV, HEADER, COMPRESSION GZIP)")
    con.close()
    tmp.rename(target)
    return target


def cpu_seconds() -> float:
    """User + system CPU time of this process so far, all threads (DuckDB's included)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def baseline(source: Path, out: Path) -> float:
    columns = ", ".join(
        f"{sql_str(name)}: {sql_str(type_)}" for name, type_ in CHARTEVENTS.duckdb_columns().items()
    )
    con = duckdb.connect()
    started = time.perf_counter()
    con.execute(
        f"COPY (SELECT * FROM read_csv({sql_str(source)}, header = true, auto_detect = false, "
        f"nullstr = ['', '___'], columns = {{{columns}}})) TO {sql_str(out)} "
        "(FORMAT PARQUET, COMPRESSION ZSTD, ROW_GROUP_SIZE 122880)"
    )
    elapsed = time.perf_counter() - started
    con.close()
    return elapsed


def ours(tree: Path, home_root: Path) -> tuple[float, int]:
    shutil.rmtree(home_root, ignore_errors=True)
    started = time.perf_counter()
    home = DataHome(home_root)
    report = ingest_dataset(home, "mimic-iv", tree, name="bench", tables=["chartevents"])
    elapsed = time.perf_counter() - started
    return elapsed, report.tables[0].rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=5_000_000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--workdir", type=Path, default=None)
    args = parser.parse_args()
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="m4bench-ingest-"))
    tree = workdir / f"tree-{args.rows}"
    began = time.perf_counter()
    source = generate(tree, args.rows)
    size = source.stat().st_size
    print(f"input: {source} ({args.rows:,} rows, {size / 1e6:,.1f} MB gzip); "
          f"generated in {time.perf_counter() - began:.1f} s")  # fmt: skip
    base_times: list[float] = []
    our_times: list[float] = []
    base_cpu: list[float] = []
    our_cpu: list[float] = []
    for _ in range(args.rounds):
        started = cpu_seconds()
        base_times.append(baseline(source, workdir / "baseline.parquet"))
        base_cpu.append(cpu_seconds() - started)
        started = cpu_seconds()
        elapsed, rows = ours(tree, workdir / "home")
        our_cpu.append(cpu_seconds() - started)
        assert rows == args.rows, f"ingested {rows} rows, expected {args.rows}"
        our_times.append(elapsed)
    best_base, best_ours = min(base_times), min(our_times)
    results = (("duckdb read_csv -> parquet", best_base), ("m4bench ingest", best_ours))
    for label, seconds in results:
        print(f"{label:<28} {seconds:7.2f} s  {args.rows / seconds / 1e6:6.2f} M rows/s  "
              f"{size / seconds / 1e6:7.1f} MB/s")  # fmt: skip
    print(f"ratio m4bench / baseline throughput: {best_base / best_ours:.2f} (target >= 0.80)")
    median = statistics.median(base_times) / statistics.median(our_times)
    cpu = statistics.median(base_cpu) / statistics.median(our_cpu)
    print(f"ratio of medians: {median:.2f}; CPU-time ratio (load-independent): {cpu:.2f}")
    print(f"wall s: baseline {_rounded(base_times)}, m4bench {_rounded(our_times)}")
    print(f"CPU s:  baseline {_rounded(base_cpu)}, m4bench {_rounded(our_cpu)}")


def _rounded(values: list[float]) -> list[float]:
    return [round(value, 2) for value in values]


if __name__ == "__main__":
    main()
