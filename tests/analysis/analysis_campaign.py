"""Small synthetic campaigns with known effects, built by the tests themselves."""

from __future__ import annotations

import csv
from pathlib import Path

from result_records import record as make_record
from result_records import score

from m4bench.agents.usage import Usage
from m4bench.fileio import write_model
from m4bench.results import ResultRecord, RunSpec
from m4bench.results.record import Timings

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
    the obfuscated schema); 'with-skill-decoy' equals baseline; 'spec' adds 80 % of the effect."""
    level = 0.5 + (0.1 if model == "model-b" else 0.0) + TRIAL_NOISE[trial - 1]
    effect = TASKS[task] * (0.5 if schema == "obfuscated" else 1.0)
    share = {"no-skill": 0.0, "with-skill": 1.0, "with-skill-decoy": 0.0, "operational-spec": 0.8}
    return round(level + share[condition] * effect, 8)


def record(task: str, condition: str, schema: str, model: str, trial: int) -> ResultRecord:
    """A result record (format 2) of the run, scored as :func:`reward` says."""
    value = reward(task, condition, schema, model, trial)
    spec = RunSpec.model_validate(
        {"task": task, "condition": condition, "schema": schema, "agent": "replay",
         "model": model, "trial": trial}
    )  # fmt: skip
    scored = score(value, failed_checks=0 if value >= 0.6 else 1, checks=6, precision=0.8,
                   truth_rows=100, extra_keys=25)  # fmt: skip
    return make_record(
        spec,
        scored=scored,
        timings=Timings(agent=100.0 + 10 * trial, total=100.0 + 10 * trial),
        usage=Usage(input_uncached=1000 * trial, output=50),
    ).model_copy(update={"run_id": f"{task}_{condition}_{schema}_{model}_t{trial}"})


def grid(
    conditions: tuple[str, ...] = ("no-skill", "with-skill"), schemas: tuple[str, ...] = ("native",)
) -> list[ResultRecord]:
    return [
        record(task, condition, schema, model, trial)
        for task in TASKS
        for condition in conditions
        for schema in schemas
        for model in MODELS
        for trial in (1, 2, 3)
    ]


def write_results_dir(root: Path, records: list[ResultRecord]) -> Path:
    """Each record as ``<root>/<run_id>/result.json``: a folder of runs."""
    for item in records:
        write_model(root / item.run_id / "result.json", item)
    return root


def write_runs_csv(path: Path, records: list[ResultRecord]) -> Path:
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
            spec, checks = item.identity, item.score.checks if item.score else []
            writer.writerow(
                [
                    spec.task,
                    spec.condition,
                    spec.schema_name,
                    spec.model,
                    spec.trial,
                    item.reward,
                    "True",
                    sum(not check.passed for check in checks),
                    0,
                    "0.9",
                    item.run_id,
                ]
            )
    return path
