"""The instruction an agent receives, assembled from fixed parts and saved with the run.

Order: the isolation paragraph, the convention paragraph, the task's instruction with
its placeholders filled, then per condition the operational specification, and per
schema the generated schema dictionary. The text depends only on the task, the
condition and the schema (no paths of the host, no dates), so equal runs get equal
instructions.
"""

from __future__ import annotations

import re
from pathlib import Path

from m4bench.errors import M4BenchError
from m4bench.results.identity import Condition, SchemaName
from m4bench.runner.conditions import operational_spec
from m4bench.tasks.catalog import Task

OUTPUT_PATH = "./output.csv"
DATABASE_PATH = "./agent.duckdb"

ISOLATION_PARAGRAPH = (
    "Work only with the files in your working directory: the DuckDB database "
    f"`{DATABASE_PATH}`, this instruction and any skills provided to you. Do not search "
    "or fetch anything from the web, do not install packages, and do not try to reach "
    "the network or any path outside your working directory."
)
CONVENTION_PARAGRAPH = (
    "Where a clinical concept has several published definitions, follow the standard "
    "public concept conventions for this database release: your output is scored against "
    "a reference implementation of those conventions."
)
SPEC_HEADING = "## Operational Specification"
SPEC_FRAMING = (
    "The following specification states the exact rules of the expected output; where it "
    "is more precise than the task description above, follow it."
)
_DATASET_NAMES = re.compile(r"MIMIC[- ]?IV(?: v?3\.1)?", re.IGNORECASE)
NEUTRAL_DATASET_NAME = "the clinical database"


def assemble_instruction(
    task: Task,
    condition: Condition,
    schema: SchemaName,
    dictionary: str | None = None,
) -> str:
    """The full instruction text. ``dictionary`` is required for a perturbed schema."""
    body = task.render_instruction(OUTPUT_PATH).replace("{db_path}", DATABASE_PATH)
    parts = [ISOLATION_PARAGRAPH, CONVENTION_PARAGRAPH, body.strip()]
    if condition == "operational-spec":
        spec = operational_spec(task)
        parts.append(f"---\n{SPEC_HEADING}\n\n{SPEC_FRAMING}\n\n{spec}")
    text = "\n\n".join(parts)
    if schema != "native":
        if not dictionary or not dictionary.strip():
            raise M4BenchError(
                f"task {task.name}: the {schema} schema needs its schema dictionary",
                hint=f"build it with `m4bench setup --task {task.name} --schema {schema}`",
            )
        text = _DATASET_NAMES.sub(NEUTRAL_DATASET_NAME, text)
        text = f"{text}\n\n---\n{dictionary.strip()}"
    return text + "\n"


def read_dictionary(path: Path) -> str:
    """A perturbed task's ``dictionary.md``, with a clear error when it is not built."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise M4BenchError(
            f"{path}: no schema dictionary",
            hint="build the perturbed schema with `m4bench setup --schema obfuscated` "
            "(or restructured)",
        ) from exc
