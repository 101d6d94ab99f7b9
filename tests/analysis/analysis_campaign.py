"""Small synthetic campaigns with known effects, built by the tests themselves."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

TASKS = {
    "mimic-sofa-24h": 0.10,
    "mimic-sofa-24h-raw": 0.30,
    "mimic-kdigo-48h": -0.05,
    "mimic-meld-24h-raw": 0.20,
    "eicu-gcs": 0.05,
}
MODELS = ("model-a", "model-b")
TRIAL_NOISE = (-0.02, 0.0, 0.02)


def reward(task: str, condition: str, schema: str, model: str, trial: int) -> float:
    """Baseline 0.5 (+0.1 for model-b); treatment adds the task's effect (halved on
    the obfuscated schema); 'decoy' equals baseline; 'spec' adds 80 % of the effect."""
    level = 0.5 + (0.1 if model == "model-b" else 0.0) + TRIAL_NOISE[trial - 1]
    effect = TASKS[task] * (0.5 if schema == "obfuscated" else 1.0)
    share = {"no-skill": 0.0, "with-skill": 1.0, "decoy": 0.0, "operational-spec": 0.8}
    return round(level + share[condition] * effect, 8)


def record(task: str, condition: str, schema: str, model: str, trial: int) -> dict[str, Any]:
    """A result record in the nested result.json layout."""
    value = reward(task, condition, schema, model, trial)
    return {
        "task": task,
        "condition": condition,
        "schema": schema,
        "agent": "replay",
        "model": model,
        "trial": trial,
        "publishable": True,
        "isolated": True,
        "run_id": f"{task}_{condition}_{schema}_{model}_t{trial}",
        "agent_result": {"returncode": 0, "elapsed_seconds": 100.0 + 10 * trial},
        "test_results": {
            "passed": 5,
            "failed": 0 if value >= 0.6 else 1,
            "errors": 0,
            "total": 6,
            "reward": value,
            "key_precision": 0.8,
            "extra_keys": 25,
            "agent_unique_keys": 125,
            "truth_rows": 100,
            "diagnostics_failed": value < 0.6,
        },
        "filesystem_canary": {"passed": True},
        "contamination_lint": {"passed": True},
        "token_usage": {
            "input_tokens": 1000 * trial,
            "cached_input_tokens": 0,
            "output_tokens": 50,
        },
    }


def grid(
    conditions: tuple[str, ...] = ("no-skill", "with-skill"), schemas: tuple[str, ...] = ("native",)
) -> list[dict[str, Any]]:
    return [
        record(task, condition, schema, model, trial)
        for task in TASKS
        for condition in conditions
        for schema in schemas
        for model in MODELS
        for trial in (1, 2, 3)
    ]


def write_results_dir(root: Path, records: list[dict[str, Any]]) -> Path:
    for item in records:
        run_dir = root / item["run_id"]
        run_dir.mkdir(parents=True)
        (run_dir / "result.json").write_text(json.dumps(item), encoding="utf-8")
    return root


def write_runs_csv(path: Path, records: list[dict[str, Any]]) -> Path:
    columns = [
        "task",
        "condition",
        "schema",
        "model",
        "trial",
        "reward",
        "publishable",
        "failed",
        "errors",
        "key_f1",
        "run_id",
    ]
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(columns)
        for item in records:
            tests = item["test_results"]
            writer.writerow(
                [
                    item["task"],
                    item["condition"],
                    item["schema"],
                    item["model"],
                    item["trial"],
                    tests["reward"],
                    "True",
                    tests["failed"],
                    0,
                    "0.9",
                    item["run_id"],
                ]
            )
    return path
