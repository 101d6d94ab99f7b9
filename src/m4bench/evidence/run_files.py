"""One run's files in a package: result record, instruction, trace, trajectory, egress
log, output."""

from __future__ import annotations

import csv
import io
from collections import Counter
from pathlib import Path

from m4bench.errors import M4BenchError
from m4bench.evidence.builder import Builder, action
from m4bench.evidence.outputs import scores_only
from m4bench.evidence.records import sanitize_egress, sanitize_jsonl
from m4bench.evidence.redact import Redactor
from m4bench.evidence.trajectories import package_trajectory
from m4bench.results.layout import (
    DIFF_FILE,
    EGRESS_FILE,
    INSTRUCTION_FILE,
    OUTPUT_FILE,
    RESULT_FILE,
    RUNS_DIR,
    STDERR_FILE,
    TRACE_FILE,
    TRAJECTORY_FILE,
    artifact_root,
)
from m4bench.results.read import parse_result
from m4bench.results.record import ResultRecord
from m4bench.tasks.evaluation import IDENTIFIER_COLUMNS, EvaluationSpec

OUTPUT = OUTPUT_FILE
TEXT_ARTIFACTS = (INSTRUCTION_FILE, TRACE_FILE, EGRESS_FILE)
NOT_PACKAGED = {
    DIFF_FILE: "row-level differences against the ground truth",
    STDERR_FILE: "free text outside the trace; not part of the evidence",
}
MAX_ID_LITERALS = 50_000
TRACE_DROPPED = (
    "scores-only: an agent's trace may hold data rows in any shape (JSON lines, tables, "
    "sentences), so it is not packaged; the trajectory keeps the run's structure only"
)


def package_run(builder: Builder, run_id: str, record: ResultRecord) -> ResultRecord:
    """Add the run's files to the package; return its sanitized result record."""
    artifacts = _artifact_paths(builder.results, run_id, record)
    identifiers: list[str] = []
    if OUTPUT in artifacts:
        evaluation = builder.catalog.task(record.identity.task).card.evaluation
        identifiers = _add_output(builder, run_id, artifacts[OUTPUT], evaluation, record)
    redactor = builder.redactor(identifiers)
    rows = builder.options.outputs != "scores-only" and builder.is_public(record.source)
    for name in TEXT_ARTIFACTS:
        if name == TRACE_FILE and name in artifacts and not rows:
            builder.skip(_relative(builder, artifacts[name]), TRACE_DROPPED)
        elif name in artifacts:
            _add_text(builder, run_id, name, artifacts[name], redactor)
    if TRAJECTORY_FILE in artifacts:
        package_trajectory(builder, run_id, artifacts[TRAJECTORY_FILE], redactor, rows)
    for name, path in sorted(artifacts.items()):
        if name in NOT_PACKAGED:
            builder.skip(_relative(builder, path), NOT_PACKAGED[name])
    source = f"{RUNS_DIR}/{run_id}/{RESULT_FILE}"
    return parse_result(builder.add_json(source, source, redactor), f"{source} (sanitized)")


def _artifact_paths(results: Path, run_id: str, record: ResultRecord) -> dict[str, Path]:
    """The runner's kept artifacts of the final attempt that exist on disk."""
    root = artifact_root(results, run_id)
    found = {}
    for name, entry in record.artifacts.items():
        path = root / entry.path
        if path.is_file():
            found[name] = path
    return found


def _relative(builder: Builder, path: Path) -> str:
    return str(path.relative_to(builder.results))


def _add_text(builder: Builder, run_id: str, name: str, path: Path, redactor: Redactor) -> None:
    raw = path.read_bytes()
    text = raw.decode("utf-8", errors="replace")
    counts: Counter[str] = Counter()
    if name == TRACE_FILE:
        clean, what = sanitize_jsonl(text, redactor, counts), "redacted trace"
    elif name == EGRESS_FILE:
        clean, what = sanitize_egress(text, redactor, counts), "egress log, relative times"
    else:
        clean, what = redactor.text(text), "redacted text"
    data = clean.encode("utf-8")
    target = f"{RUNS_DIR}/{run_id}/{name}"
    builder.add(
        target, data, action(target, _relative(builder, path), what, raw, data, redactor, counts)
    )


def _add_output(
    builder: Builder,
    run_id: str,
    path: Path,
    evaluation: EvaluationSpec,
    record: ResultRecord,
) -> list[str]:
    """Add the output (scores-only or full); return its identifier values for redaction."""
    raw = path.read_bytes()
    text = raw.decode("utf-8", errors="replace")
    target = f"{RUNS_DIR}/{run_id}/{OUTPUT}"
    source = record.source
    mode = builder.options.outputs
    public = builder.is_public(source)
    if mode == "full" and not public:
        raise M4BenchError(
            f"run {run_id}: source {source!r} is not marked public; full outputs may not be "
            "packaged",
            hint="use --outputs scores-only (or auto) for credentialed data",
        )
    empty = Redactor()
    if public and mode != "scores-only":
        builder.add(target, raw, action(target, _relative(builder, path), "kept in full "
                    "(public synthetic source)", raw, raw, empty))  # fmt: skip
        return []
    clean, report = scores_only(text, evaluation, builder.options.salt)
    data = clean.encode("utf-8")
    builder.add(
        target,
        data,
        action(target, _relative(builder, path), "scores-only", raw, data, empty,
               rows=report.rows, kept_columns=report.kept, dropped_columns=report.dropped),
    )  # fmt: skip
    return identifier_values(text, evaluation)


def identifier_values(text: str, evaluation: EvaluationSpec) -> list[str]:
    """Distinct values of the output's key and identifier columns (capped)."""
    reader = csv.reader(io.StringIO(text))
    header = next(reader, [])
    wanted = set(evaluation.key_columns) | IDENTIFIER_COLUMNS
    index = [i for i, name in enumerate(header) if name in wanted]
    values: set[str] = set()
    for row in reader:
        values.update(row[i].strip() for i in index if i < len(row) and row[i].strip())
        if len(values) > MAX_ID_LITERALS:
            break
    return sorted(values)
