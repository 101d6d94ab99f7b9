"""One run's files in a package: result record, instruction, trace, egress log, output."""

from __future__ import annotations

import csv
import io
from collections import Counter
from pathlib import Path
from typing import Any

from m4bench.errors import M4BenchError
from m4bench.evidence.audit import RUNS_DIR
from m4bench.evidence.builder import Builder, action
from m4bench.evidence.outputs import scores_only
from m4bench.evidence.records import sanitize_egress, sanitize_jsonl
from m4bench.evidence.redact import Redactor
from m4bench.tasks.evaluation import IDENTIFIER_COLUMNS, EvaluationSpec

WORK_DIR = "work"
OUTPUT = "output.csv"
TEXT_ARTIFACTS = ("instruction.md", "trace.jsonl", "egress.jsonl")
NOT_PACKAGED = {
    "diff.parquet": "row-level differences against the ground truth",
    "stderr.log": "free text outside the trace; not part of the evidence",
    "trajectory.json": "derived from the trace, which is packaged",
}
MAX_ID_LITERALS = 50_000


def package_run(builder: Builder, run_id: str, record: dict[str, Any]) -> dict[str, Any]:
    """Add the run's files to the package; return its sanitized result record."""
    inner = record.get("record")
    inner = inner if isinstance(inner, dict) else {}
    artifacts = _artifact_paths(builder.results, run_id, inner)
    evaluation = builder.catalog.task(str(record.get("task"))).card.evaluation
    identifiers: list[str] = []
    if OUTPUT in artifacts:
        identifiers = _add_output(builder, run_id, artifacts[OUTPUT], evaluation, inner)
    redactor = builder.redactor(identifiers)
    for name in TEXT_ARTIFACTS:
        if name in artifacts:
            _add_text(builder, run_id, name, artifacts[name], redactor)
    for name, path in sorted(artifacts.items()):
        if name in NOT_PACKAGED:
            builder.skip(_relative(builder, path), NOT_PACKAGED[name])
    source = f"{RUNS_DIR}/{run_id}/result.json"
    return builder.add_json(source, source, redactor)


def _artifact_paths(results: Path, run_id: str, inner: dict[str, Any]) -> dict[str, Path]:
    """The runner's kept artifacts of the final attempt that exist on disk."""
    run_dir = results / WORK_DIR / run_id
    found = {}
    for name, entry in (inner.get("artifacts") or {}).items():
        path = run_dir / str(entry.get("path", "")) if isinstance(entry, dict) else None
        if path is not None and path.is_file():
            found[str(name)] = path
    return found


def _relative(builder: Builder, path: Path) -> str:
    return str(path.relative_to(builder.results))


def _add_text(builder: Builder, run_id: str, name: str, path: Path, redactor: Redactor) -> None:
    raw = path.read_bytes()
    text = raw.decode("utf-8", errors="replace")
    counts: Counter[str] = Counter()
    if name == "trace.jsonl":
        clean, what = sanitize_jsonl(text, redactor, counts), "redacted trace"
    elif name == "egress.jsonl":
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
    inner: dict[str, Any],
) -> list[str]:
    """Add the output (scores-only or full); return its identifier values for redaction."""
    raw = path.read_bytes()
    text = raw.decode("utf-8", errors="replace")
    target = f"{RUNS_DIR}/{run_id}/{OUTPUT}"
    source = str(inner.get("source", ""))
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
