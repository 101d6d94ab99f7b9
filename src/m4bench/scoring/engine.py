"""``score_output``: one agent output against one truth, never raising on the output."""

from __future__ import annotations

import contextlib
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

import duckdb

from m4bench.scoring.agent_table import (
    SCRATCH_TABLES,
    SCRATCH_VIEWS,
    AgentLayout,
    AgentRows,
    load_agent,
)
from m4bench.scoring.alternatives_file import TieAlternatives, register_alternatives
from m4bench.scoring.compare import JoinCounts, compare_rows, extra_key_sample
from m4bench.scoring.counts import join_passes
from m4bench.scoring.diff import diff_target_problem, write_diff
from m4bench.scoring.metrics import (
    column_scores,
    key_metrics,
    ordered_error,
    reward_of,
    strict_checks,
    tie_notes,
)
from m4bench.scoring.model import Failure, Score, TieReading
from m4bench.scoring.options import ScoreOptions
from m4bench.scoring.output_file import Inspection, inspect_output, near_misses
from m4bench.scoring.spec_file import check_unique_names
from m4bench.scoring.truth import TruthTable, load_truth
from m4bench.tasks.evaluation import EvaluationSpec


@dataclass
class _Outcome:
    """What was learned about the output on the way to a score."""

    inspection: Inspection
    agent: AgentRows | None = None
    counts: JoinCounts | None = None
    extra_sample: list[dict[str, object]] = field(default_factory=list)
    present: set[str] = field(default_factory=set)
    layout: AgentLayout | None = None
    engine_broken: bool = False
    alternatives: TieAlternatives | None = None


def score_output(
    spec: EvaluationSpec,
    truth: Path,
    output: Path,
    *,
    options: ScoreOptions | None = None,
    diff_path: Path | None = None,
) -> Score:
    """Score ``output`` (an agent's CSV) against ``truth`` (Parquet or CSV) under ``spec``.

    Raises ``M4BenchError`` only when the truth itself is unusable or the spec names a
    column twice in one list; every problem with the output ends in a ``Score`` whose
    ``failure`` and ``diagnostics`` say what it was. A ``diff_path`` that is the output,
    the truth, or an existing file other than an earlier diff is not written (a
    diagnostic says why).
    """
    with Scorer(spec, truth, options) as scorer:
        return scorer.score(output, diff_path=diff_path)


class Scorer:
    """One truth loaded once, any number of outputs scored against it, one at a time.

    Use as a context manager; ``score`` never raises on the output.
    """

    def __init__(
        self, spec: EvaluationSpec, truth: Path, options: ScoreOptions | None = None
    ) -> None:
        check_unique_names(spec)
        self.spec = spec
        self.options = options or ScoreOptions()
        self._truth_path = truth
        self._stack = contextlib.ExitStack()
        self._scored = 0
        self._alternatives: TieAlternatives | None = None
        self._tie_note: str | None = None
        self._con, self._scratch, self.truth = self._open()

    def _open(self) -> tuple[duckdb.DuckDBPyConnection, Path, TruthTable]:
        con, scratch = self._stack.enter_context(_connection(self.options))
        try:
            truth = load_truth(con, self.spec, self._truth_path)
            if self.options.ties == "admit":
                self._alternatives, self._tie_note = register_alternatives(con, self.spec, truth)
            return con, scratch, truth
        except BaseException:
            self._stack.close()
            raise

    @property
    def has_alternatives(self) -> bool:
        """The truth has admissible tie alternatives and the options admit them."""
        return self._alternatives is not None

    @property
    def scratch_folder(self) -> Path:
        """Where each output's parsed rows are written while it is scored (deleted on
        ``close``); its disk needs about the output's own size."""
        return self._scratch

    def __enter__(self) -> Scorer:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        self._stack.close()

    def score(self, output: Path, *, diff_path: Path | None = None) -> Score:
        con, options = self._con, self.options
        _forget_output(con, self._scratch)
        # A new file name per output: nothing cached about an earlier file can apply.
        self._scored += 1
        parsed = self._scratch / f"agent-{self._scored}.parquet"
        outcome = _Outcome(inspection=inspect_output(output, options))
        outcome.alternatives = self._alternatives
        if self._tie_note:
            outcome.inspection.diagnostics.append(self._tie_note)
        if diff_path is not None:
            inputs = {"output": output, "truth": self._truth_path}
            refused = diff_target_problem(diff_path, inputs)
            if refused is not None:
                outcome.inspection.diagnostics.append(f"row-level diff not written: {refused}")
                diff_path = None
        if outcome.inspection.failure is None:
            # One time limit for the comparison and the diff: a diff cut short is
            # not written, and the score stands.
            with _deadline(con, options.time_limit_seconds):
                _compare(con, self.spec, self.truth, (output, parsed), options, outcome)
                if diff_path is not None and outcome.layout is not None:
                    _write_diff(con, self.spec, self.truth, diff_path, outcome.layout, outcome)
        score = _assemble(self.spec, self.truth, options, outcome)
        if outcome.engine_broken:
            # DuckDB invalidates a database after an internal error; start afresh.
            self._stack.close()
            self._stack = contextlib.ExitStack()
            self._con, self._scratch, self.truth = self._open()
        return score


def _forget_output(con: duckdb.DuckDBPyConnection, scratch: Path) -> None:
    """Drop whatever a previous output left in the connection and the scratch folder."""
    drops = [f"DROP VIEW IF EXISTS {view}" for view in SCRATCH_VIEWS]
    tables = (*SCRATCH_TABLES, "reject_errors", "reject_scans")
    drops.extend(f"DROP TABLE IF EXISTS {table}" for table in tables)
    con.execute("; ".join(drops))
    for parsed in scratch.glob("agent-*.parquet"):
        parsed.unlink(missing_ok=True)


@contextlib.contextmanager
def _connection(options: ScoreOptions) -> Iterator[tuple[duckdb.DuckDBPyConnection, Path]]:
    """A DuckDB connection and a private scratch folder (its spill space as well)."""
    with tempfile.TemporaryDirectory(prefix="m4bench-score-") as spill:
        con = duckdb.connect(
            ":memory:",
            config={
                "threads": str(options.threads),
                "memory_limit": f"{options.memory_limit_mb}MB",
                "temp_directory": spill,
                "preserve_insertion_order": "true",
            },
        )
        try:
            # Tables made while scoring (the repeated keys, a CSV truth) live in a
            # compressed in-memory database; the parsed output itself goes to disk.
            con.execute("ATTACH ':memory:' AS scratch (COMPRESS); USE scratch")
            yield con, Path(spill)
        finally:
            con.close()


@contextlib.contextmanager
def _deadline(con: duckdb.DuckDBPyConnection, seconds: float) -> Iterator[None]:
    timer = threading.Timer(seconds, con.interrupt)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()


def _compare(
    con: duckdb.DuckDBPyConnection,
    spec: EvaluationSpec,
    table: TruthTable,
    files: tuple[Path, Path],
    options: ScoreOptions,
    outcome: _Outcome,
) -> None:
    """``files``: the output and where its parsed rows go (a scratch Parquet file)."""
    output, parsed = files
    inspection = outcome.inspection
    header = inspection.header
    assert header is not None
    inspection.diagnostics.extend(near_misses(spec.required_columns, header))
    absent_keys = [name for name in spec.key_columns if name not in header.positions]
    if absent_keys:
        inspection.fail("key_columns_missing", f"output lacks key columns {absent_keys}")
        return
    try:
        layout, outcome.agent = load_agent(con, output, header, spec, table, options, parsed)
        outcome.layout = layout
        inspection.diagnostics.extend(outcome.agent.reject_notes)
        outcome.present = set(layout.values)
        size = options.mismatch_sample_size
        rows = max(table.rows, outcome.agent.rows)
        passes = join_passes(rows, layout, options.memory_limit_mb)
        outcome.counts = compare_rows(
            con, spec, table, layout, size, passes, alternatives=outcome.alternatives
        )
        if outcome.agent.unique_keys > outcome.counts.totals.joined:
            outcome.extra_sample = extra_key_sample(
                con, spec, table, layout, size, outcome.counts.totals.extra_rows
            )
    except duckdb.InterruptException:
        inspection.fail(
            "time_limit",
            f"scoring stopped after {options.time_limit_seconds} s",
            "time_limit_seconds",
        )
    except duckdb.OutOfMemoryException as exc:
        inspection.fail("resource_limit", f"scoring ran out of memory: {exc}", "memory_limit_mb")
    except duckdb.Error as exc:
        _engine_failure(exc, parsed.parent, outcome)
    if inspection.failure is not None:
        outcome.agent, outcome.counts, outcome.present = None, None, set()
        outcome.layout = None


def _engine_failure(exc: duckdb.Error, scratch: Path, outcome: _Outcome) -> None:
    """Record why DuckDB stopped: the scratch disk, the output itself, or the engine."""
    if isinstance(exc, duckdb.IOException) and str(scratch) in str(exc):
        outcome.inspection.fail(
            "resource_limit",
            f"the parsed output could not be written to the scratch folder {scratch} "
            f"(is its disk full?): {_first_line(exc)}",
        )
        return
    outcome.engine_broken = isinstance(exc, duckdb.InternalException | duckdb.FatalException)
    failure: Failure = "output_unreadable" if outcome.agent is None else "internal_error"
    outcome.inspection.fail(failure, f"output could not be compared: {_first_line(exc)}")


def _first_line(exc: Exception) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


def _write_diff(
    con: duckdb.DuckDBPyConnection,
    spec: EvaluationSpec,
    table: TruthTable,
    diff_path: Path,
    layout: AgentLayout,
    outcome: _Outcome,
) -> None:
    try:
        write_diff(con, spec, table, layout, diff_path)
    except duckdb.InterruptException:
        outcome.inspection.diagnostics.append(
            "row-level diff not written: the time limit (time_limit_seconds) ran out"
        )
    except (duckdb.Error, OSError) as exc:
        outcome.inspection.diagnostics.append(f"row-level diff not written: {exc}")


def _assemble(
    spec: EvaluationSpec, table: TruthTable, options: ScoreOptions, outcome: _Outcome
) -> Score:
    inspection, counts = outcome.inspection, outcome.counts
    keys = key_metrics(
        counts.totals.truth_rows if counts else table.rows,
        outcome.agent,
        counts.totals.joined if counts else 0,
        counts.missing_sample if counts else [],
        outcome.extra_sample,
    )
    admitted = counts.admitted if counts else None
    if admitted is not None:
        keys = keys.model_copy(
            update={
                "alternative_keys": len(admitted.added_rows),
                "excused_keys": len(admitted.excused),
            }
        )
        inspection.diagnostics.extend(tie_notes(admitted))
    columns = column_scores(spec, table, keys, counts, outcome.present)
    strict_ties = _strict_reading(spec, table, outcome) if admitted and admitted.changed else None
    if counts is None:
        columns = [column.model_copy(update={"error": "output not compared"}) for column in columns]
    header = inspection.header.names if inspection.header else None
    checks = strict_checks(
        spec,
        exists=inspection.size is not None,
        parsed_rows=outcome.agent.rows if outcome.agent else None,
        header=header,
        keys=keys,
        columns=columns,
    )
    return Score(
        reward=reward_of(columns),
        strict_pass=all(check.passed for check in checks) and inspection.failure is None,
        checks=checks,
        columns=columns,
        keys=keys,
        ordered_error=ordered_error(keys.truth_rows, table, counts, outcome.present),
        null_tokens=options.null_tokens,
        options=options,
        failure=inspection.failure,
        limits_hit=inspection.limits_hit,
        diagnostics=inspection.diagnostics,
        output_bytes=inspection.size,
        rejected_lines=outcome.agent.rejected_lines if outcome.agent else 0,
        strict_ties=strict_ties,
    )


def _strict_reading(spec: EvaluationSpec, table: TruthTable, outcome: _Outcome) -> TieReading:
    """Reward and strict pass of the counts against the truth alone (``ties="strict"``)."""
    counts, inspection = outcome.counts, outcome.inspection
    assert counts is not None and counts.admitted is not None
    before = replace(counts, totals=counts.admitted.before, admitted=None)
    keys = key_metrics(before.totals.truth_rows, outcome.agent, before.totals.joined, [], [])
    columns = column_scores(spec, table, keys, before, outcome.present)
    checks = strict_checks(
        spec,
        exists=inspection.size is not None,
        parsed_rows=outcome.agent.rows if outcome.agent else None,
        header=inspection.header.names if inspection.header else None,
        keys=keys,
        columns=columns,
    )
    passed = all(check.passed for check in checks) and inspection.failure is None
    return TieReading(reward=reward_of(columns), strict_pass=passed)
