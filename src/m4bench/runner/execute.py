"""``execute_run``: one run, from an empty directory to its result record.

Every call writes a record (:mod:`m4bench.results.layout`): a harness failure (missing
ground truth, unknown agent, a crash of the harness itself) becomes a record with status
``harness_error`` and the error message, never a lost run; Ctrl-C (KeyboardInterrupt) is
recorded as ``interrupted`` and raised again.

The record becomes the run's ``<results>/<run_id>/result.json`` unless that file holds
a complete record already (or one this m4bench cannot read): a complete record is never
replaced, and the new attempt's record is kept in its attempt folder
(``attempt-<n>/attempt-result.json``). An incomplete record (a harness error, an
interrupted run) is replaced by the next attempt's.

The run's identity covers its inputs (:mod:`m4bench.runner.identity_inputs`): a spec
that lacks them gets them here, and one planned with other inputs is a harness error.
"""

from __future__ import annotations

import dataclasses
import platform
import time
import traceback
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

import m4bench
from m4bench.errors import M4BenchError, is_interruption
from m4bench.fileio import write_model
from m4bench.home import DataHome
from m4bench.results.identity import RunSpec
from m4bench.results.record import ResultRecord, SandboxRecord, Timings, Versions
from m4bench.runner.builtin_agents import MutantSource
from m4bench.runner.canary import run_canary
from m4bench.runner.finish import finish_run
from m4bench.runner.identity_inputs import check_identified
from m4bench.runner.prepare import PreparedRun, prepare_run
from m4bench.runner.workdir import RunPaths, check_results_dir, next_attempt, record_destination
from m4bench.runner.workdir_files import DEFAULT_MAX_OUTPUT_BYTES
from m4bench.runner.workdir_sweep import discard_attempt_files
from m4bench.sandbox import Limits, SandboxResult, default_sandbox_name, get_sandbox
from m4bench.tasks.catalog import Catalog


@dataclass(frozen=True)
class RunOptions:
    """How to execute a run. The replay file's digest and the endpoint (for the agents
    that reach it) enter the run's identity; nothing else here does."""

    sandbox: str = field(default_factory=default_sandbox_name)
    timeout: float | None = None
    endpoint: str | None = None
    replay_file: Path | None = None
    mutants: MutantSource | None = None
    credentials: Mapping[str, str] | None = None
    limits: Limits | None = None
    keep_workdir: bool = False
    catalog: Catalog | None = None  # loaded once by callers that run many tasks
    max_output_bytes: int = DEFAULT_MAX_OUTPUT_BYTES  # a larger output.csv is not taken


def versions() -> Versions:
    return Versions(
        m4bench=m4bench.__version__, python=platform.python_version(), duckdb=duckdb.__version__
    )


def execute_run(
    spec: RunSpec,
    *,
    home: DataHome | Path,
    source: str,
    results_dir: Path,
    sandbox: str | None = None,
    timeout: float | None = None,
    options: RunOptions | None = None,
) -> ResultRecord:
    """Run ``spec`` once (a new attempt) and return the record written for it.

    ``home``: the data home, or its folder. ``sandbox`` and ``timeout`` override
    ``options``; the timeout defaults to the task card's ``timeout_seconds``. Raises only
    when the results directory itself is unusable; every other failure is recorded.
    """
    home = home if isinstance(home, DataHome) else DataHome.from_env(Path(home))
    opts = options or RunOptions()
    if sandbox is not None or timeout is not None:
        opts = dataclasses.replace(
            opts,
            sandbox=sandbox or opts.sandbox,
            timeout=timeout if timeout is not None else opts.timeout,
        )
    results = check_results_dir(results_dir, home)
    problem: M4BenchError | None = None
    try:
        spec = check_identified(spec, opts.endpoint, opts.replay_file)
    except M4BenchError as exc:  # recorded under the id the caller planned
        problem = exc
    paths = next_attempt(results / spec.run_id)
    started = time.monotonic()
    record = _base_record(spec, source, paths, opts)
    try:
        if problem is not None:
            raise problem
        record = _run(spec, home, source, paths, opts, record)
    except Exception as exc:
        discard_attempt_files(paths, opts.keep_workdir)  # no raw log outlives a failure
        if is_interruption(exc):  # Ctrl-C stopped a DuckDB query (the scoring, say)
            _write(paths, _interrupted(record), started)
            raise KeyboardInterrupt from exc
        record = _harness_error(record, exc)
    except KeyboardInterrupt:
        # The sandbox has stopped the agent's process group; record why, then go on.
        discard_attempt_files(paths, opts.keep_workdir)
        _write(paths, _interrupted(record), started)
        raise
    return _write(paths, record, started)


INTERRUPTED = (
    "interrupted by the user (SIGINT) or a stop signal (SIGTERM); "
    "the agent's processes were stopped"
)


def _interrupted(record: ResultRecord) -> ResultRecord:
    return record.model_copy(
        update={
            "status": "interrupted",
            "status_detail": INTERRUPTED,
            "error": INTERRUPTED,
            "publishable": False,
            "publishable_reason": "the run was interrupted by the user",
        }
    )


def _base_record(spec: RunSpec, source: str, paths: RunPaths, opts: RunOptions) -> ResultRecord:
    return ResultRecord(
        run_id=spec.run_id,
        attempt=paths.attempt,
        identity=spec,
        source=source,
        versions=versions(),
        sandbox=SandboxRecord(backend=opts.sandbox, isolated=False, limits={}),
        status="harness_error",
        status_detail="the run did not finish",
        publishable=False,
        publishable_reason="the run did not finish",
    )


def _run(
    spec: RunSpec,
    home: DataHome,
    source: str,
    paths: RunPaths,
    opts: RunOptions,
    record: ResultRecord,
) -> ResultRecord:
    clock = time.monotonic()
    box = get_sandbox(opts.sandbox)
    prepared = prepare_run(spec, home, source, paths, box, opts)
    timings = Timings(prepare=time.monotonic() - clock, timeout=prepared.timeout)
    clock = time.monotonic()
    canary = run_canary(box, prepared.sandbox_spec, prepared.forbidden)
    timings.canary = time.monotonic() - clock
    result: SandboxResult | None = None
    if not canary.enforced or canary.passed:
        clock = time.monotonic()
        result = box.run(prepared.argv, prepared.sandbox_spec, prepared.timeout)
        timings.agent = time.monotonic() - clock
    return finish_run(prepared, paths, home, record, canary, result, timings, opts.keep_workdir)


def _harness_error(record: ResultRecord, exc: BaseException) -> ResultRecord:
    if isinstance(exc, M4BenchError):
        message = str(exc)
    else:
        where = traceback.extract_tb(exc.__traceback__)[-1:] if exc.__traceback__ else []
        place = f" at {Path(where[0].filename).name}:{where[0].lineno}" if where else ""
        message = f"{type(exc).__name__}: {exc}{place}"
    return record.model_copy(
        update={
            "status": "harness_error",
            "status_detail": message.splitlines()[0] if message else type(exc).__name__,
            "error": message,
            "publishable": False,
            "publishable_reason": "the harness failed",
        }
    )


def _write(paths: RunPaths, record: ResultRecord, started: float) -> ResultRecord:
    timings = record.timings.model_copy()
    timings.total = round(time.monotonic() - started, 3)
    timings.harness = round(max(timings.total - timings.agent, 0.0), 3)
    final = record.model_copy(update={"timings": timings})
    write_model(record_destination(paths), final)
    return final


__all__ = ["PreparedRun", "RunOptions", "execute_run", "versions"]
