"""Result records built by hand (format 2), for tests of what reads them: campaign
bookkeeping, the analysis, the evidence package."""

from __future__ import annotations

from typing import Any

from m4bench.results.campaign_files import PlannedRun
from m4bench.results.identity import RunSpec, spec_of
from m4bench.results.record import ResultRecord, SandboxRecord, Status, Versions
from m4bench.results.reward import reward_for
from m4bench.results.verdicts import CanaryVerdict, LintVerdict
from m4bench.scoring import Score

VERSIONS = Versions(m4bench="0.0.0", python="3.11.0", duckdb="1.0.0")


def score(
    reward: float,
    *,
    failed_checks: int = 0,
    checks: int = 2,
    precision: float = 1.0,
    recall: float = 1.0,
    truth_rows: int = 100,
    extra_keys: int = 0,
    ordered_columns: tuple[str, ...] = (),
    nmae: float | None = None,
    **fields: Any,
) -> Score:
    """A scorer's record with the given reward, strict checks and key metrics."""
    f1 = 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)
    unique = truth_rows + extra_keys
    document: dict[str, Any] = {
        "reward": reward,
        "strict_pass": failed_checks == 0,
        "checks": [
            {"name": f"check-{i}", "passed": i >= failed_checks, "detail": ""}
            for i in range(checks)
        ],
        "columns": [],
        "keys": {
            "truth_rows": truth_rows,
            "agent_rows": unique,
            "agent_unique_keys": unique,
            "agent_keys_in_truth": truth_rows,
            "extra_keys": extra_keys,
            "duplicate_rows": 0,
            "uncastable_key_rows": 0,
            "missing_keys": 0,
            "precision": precision,
            "recall": recall,
            "f1": f1,
            "row_coverage": recall,
            "missing_key_sample": [],
            "extra_key_sample": [],
        },
        "ordered_error": {
            "columns": list(ordered_columns),
            "scales": {},
            "per_column_matched_rows": {},
            "per_column_all_truth_rows": {},
            "nmae_matched_rows": nmae,
            "nmae_all_truth_rows": nmae,
        },
        "null_tokens": "empty",
        "options": {},
        "failure": None,
        "limits_hit": [],
        "diagnostics": [],
        "output_bytes": 1000,
        "rejected_lines": 0,
    }
    return Score.model_validate({**document, **fields})


def isolated_sandbox(returncode: int | None = 0, **fields: Any) -> SandboxRecord:
    """A bubblewrap sandbox whose canary and lint passed, unless ``fields`` say otherwise."""
    values: dict[str, Any] = {
        "backend": "bwrap",
        "isolated": True,
        "limits": {},
        "returncode": returncode,
        "canary": CanaryVerdict(ran=True, passed=True, enforced=True),
        "lint": LintVerdict(passed=True, files=1, bytes=10),
    }
    return SandboxRecord(**{**values, **fields})


def record(
    run: PlannedRun | RunSpec,
    *,
    status: Status = "ok",
    scored: Score | None = None,
    reward: float | None = None,
    publishable: bool = True,
    **fields: Any,
) -> ResultRecord:
    """The record of ``run``: publishable, isolated, its reward the rule's for
    ``scored`` unless ``reward`` is given (a run whose output was not scored)."""
    spec = spec_of(run.cell, run.trial) if isinstance(run, PlannedRun) else run
    fields.setdefault("sandbox", isolated_sandbox())
    return ResultRecord(
        run_id=spec.run_id,
        attempt=1,
        identity=spec,
        source="synthetic-mimic-iv",
        versions=VERSIONS,
        status=status,
        score=scored,
        reward=reward_for(scored) if reward is None else reward,
        publishable=publishable,
        publishable_reason="isolated" if publishable else "not isolated",
        **fields,
    )
