"""Map ``result.json`` run records of a results directory into ``RunRow`` records.

The adapter is the only place that knows the result record's layout. It reads the
nested layout (``test_results``, ``agent_result``, ``token_usage``, ...) and falls
back to flat top-level fields, so it tolerates small layout changes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from m4bench.analysis.runs import RunRow
from m4bench.campaign.identity import PlannedRun
from m4bench.errors import M4BenchError

RESULT_FILE = "result.json"
CAMPAIGN_FILE = "campaign.json"


def _pick(record: dict[str, Any], *paths: str) -> Any:
    """The first non-null value among dotted paths, else None."""
    for dotted in paths:
        node: Any = record
        for part in dotted.split("."):
            node = node.get(part) if isinstance(node, dict) else None
        if node is not None:
            return node
    return None


def _passed_flag(value: Any) -> bool | None:
    if isinstance(value, dict):
        inner = value.get("passed")
        return None if inner is None else bool(inner)
    return None if value is None else bool(value)


def _f1(precision: Any, recall: Any) -> float | None:
    if precision is None or recall is None:
        return None
    total = float(precision) + float(recall)
    return 0.0 if total == 0 else 2 * float(precision) * float(recall) / total


def _key_recall(record: dict[str, Any]) -> float | None:
    explicit = _pick(record, "test_results.key_recall", "score.keys.recall", "key_recall")
    if explicit is not None:
        return float(explicit)
    unique = _pick(
        record,
        "test_results.agent_unique_keys",
        "score.keys.agent_unique_keys",
        "agent_unique_keys",
    )
    extra = _pick(record, "test_results.extra_keys", "score.keys.extra_keys", "extra_keys")
    truth = _pick(record, "test_results.truth_rows", "score.keys.truth_rows", "truth_rows")
    if unique is None or extra is None or not truth:
        return None
    return (float(unique) - float(extra)) / float(truth)


def _either(value: Any, fallback: Any) -> Any:
    """``value`` unless it is None (0 and False are values), else ``fallback``."""
    return fallback if value is None else value


def _failed_checks(record: dict[str, Any]) -> int | None:
    """Failed strict checks of an embedded score record, when there is one."""
    checks = _pick(record, "score.checks")
    if not isinstance(checks, list):
        return None
    return sum(1 for check in checks if isinstance(check, dict) and not check.get("passed"))


def _score_errors(record: dict[str, Any]) -> int | None:
    """0 when an embedded score record exists (its failures are checks), else None."""
    return 0 if isinstance(_pick(record, "score.checks"), list) else None


def _check_count(record: dict[str, Any]) -> int | None:
    checks = _pick(record, "score.checks")
    return len(checks) if isinstance(checks, list) else None


def _ordered_count(record: dict[str, Any]) -> int | None:
    columns = _pick(record, "score.ordered_error.columns")
    return len(columns) if isinstance(columns, list) else None


def result_to_run(record: dict[str, Any], run_id: str) -> RunRow:
    """One result record as a ``RunRow`` (raises pydantic's error on bad fields)."""
    precision = _pick(record, "test_results.key_precision", "score.keys.precision", "key_precision")
    recall = _key_recall(record)
    key_f1 = _pick(record, "test_results.key_f1", "score.keys.f1", "key_f1")
    fields: dict[str, Any] = {
        "run_id": _pick(record, "run_id") or run_id,
        "task": _pick(record, "task"),
        "condition": _pick(record, "condition"),
        "schema_name": _pick(record, "schema") or "native",
        "model": _pick(record, "model") or "default",
        "agent": _pick(record, "agent") or "",
        "trial": _pick(record, "trial"),
        "reward": _pick(record, "test_results.reward", "score.reward", "reward"),
        "publishable": bool(_pick(record, "publishable")),
        "simulated": bool(_pick(record, "simulated", "record.simulated")),
        "isolated": _pick(record, "isolated", "sandbox.isolated", "record.sandbox.isolated"),
        "filesystem_canary": _passed_flag(
            _pick(record, "filesystem_canary", "sandbox.canary", "record.sandbox.canary")
        ),
        "contamination_lint": _passed_flag(
            _pick(record, "contamination_lint", "sandbox.lint", "record.sandbox.lint")
        ),
        "agent_returncode": _pick(
            record,
            "agent_result.returncode",
            "returncode",
            "sandbox.returncode",
            "record.sandbox.returncode",
        ),
        "failure_reason": _pick(record, "agent_result.failure_reason", "failure_reason"),
        "passed": _pick(record, "test_results.passed", "passed"),
        "failed": _either(_pick(record, "test_results.failed", "failed"), _failed_checks(record)),
        "errors": _either(_pick(record, "test_results.errors", "errors"), _score_errors(record)),
        "total_tests": _either(
            _pick(record, "test_results.total", "total_tests"), _check_count(record)
        ),
        "diagnostics_failed": _pick(record, "test_results.diagnostics_failed"),
        "key_f1": key_f1 if key_f1 is not None else _f1(precision, recall),
        "key_precision": precision,
        "key_recall": recall,
        "extra_keys": _pick(record, "test_results.extra_keys", "score.keys.extra_keys"),
        "agent_unique_keys": _pick(
            record, "test_results.agent_unique_keys", "score.keys.agent_unique_keys"
        ),
        "truth_rows": _pick(
            record, "test_results.truth_rows", "score.keys.truth_rows", "truth_rows"
        ),
        "ordered_value_nmae": _pick(
            record, "test_results.ordered_value_nmae", "score.ordered_error.nmae_matched_rows"
        ),
        "ordered_value_columns": _either(
            _pick(record, "test_results.ordered_value_columns"), _ordered_count(record)
        ),
        "elapsed_seconds": _pick(record, "agent_result.elapsed_seconds", "elapsed_seconds"),
        "input_tokens": _pick(record, "token_usage.input_tokens"),
        "cached_input_tokens": _pick(record, "token_usage.cached_input_tokens"),
        "output_tokens": _pick(record, "token_usage.output_tokens"),
        "cost_usd": _pick(record, "token_usage.cost_usd", "cost_usd"),
        "truth_sha256": _pick(record, "ground_truth.sha256", "record.ground_truth.sha256"),
    }
    return RunRow(**fields)


def _read_record(path: Path) -> dict[str, Any]:
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:  # ValueError: bad JSON or not UTF-8
        raise M4BenchError(
            f"{path}: not a readable JSON record ({exc})",
            hint="remove the damaged run directory or re-run that run",
        ) from exc
    if not isinstance(record, dict):
        raise M4BenchError(f"{path}: a result record must be a JSON object")
    return record


def load_results_dir(root: Path) -> list[RunRow]:
    """Every ``result.json`` under ``root`` (any depth), sorted by path."""
    paths = sorted(root.rglob(RESULT_FILE))
    if not paths:
        raise M4BenchError(
            f"{root}: no {RESULT_FILE} records found",
            hint="point analyze at a results directory, a runs CSV or 'paper-release-v1'",
        )
    runs: list[RunRow] = []
    for path in paths:
        try:
            runs.append(result_to_run(_read_record(path), path.parent.name))
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(part) for part in first["loc"]) or "(record)"
            raise M4BenchError(
                f"{path}: field '{where}': {first['msg']}",
                hint="the record is incomplete or from another m4bench version",
            ) from exc
    return runs


def planned_run_ids(root: Path) -> tuple[list[str] | None, str | None]:
    """Run ids and profile of a campaign's ``campaign.json`` under ``root``, or
    (None, None) when there is none (a results directory not made by a campaign)."""
    path = root / CAMPAIGN_FILE
    if not path.is_file():
        return None, None
    manifest = _read_record(path)
    runs = manifest.get("runs", [])
    try:
        ids = [PlannedRun.model_validate(run).run_id for run in runs if isinstance(run, dict)]
    except ValidationError as exc:
        raise M4BenchError(
            f"{path}: a planned run is malformed ({exc.errors()[0]['msg']})",
            hint="the campaign manifest is damaged or from another m4bench version",
        ) from exc
    profile = manifest.get("profile")
    return ids, profile if isinstance(profile, str) else None
