"""The task card (``task.toml``): a versioned, validated description of one task.

A card says what the agent derives (``[metadata]``), what its database lacks
(``[database]``), which reference query defines the answer (``[reference]``), how the
answer is scored (``[evaluation]``, an :class:`EvaluationSpec`) and which control
conditions it supports (``[controls]``). The concepts a task depends on are derived
from its reference SQL and are never written in the card.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from m4bench.errors import M4BenchError
from m4bench.fileio import read_user_text, toml_syntax_error
from m4bench.sources.datasets import DERIVED_SCHEMAS, TASK_PREFIXES, Dataset
from m4bench.tasks.evaluation import EvaluationSpec

CARD_FORMAT_VERSION: Literal[1] = 1
CARD_FILE = "task.toml"

Difficulty = Literal["easy", "medium", "hard", "expert"]
Mode = Literal["standard", "raw"]
Database = Dataset  # the card's [metadata] database: one of the datasets


class _Section(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Metadata(_Section):
    name: str = Field(pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$")
    family: str = Field(pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$")
    description: str = Field(min_length=10)
    difficulty: Difficulty
    mode: Mode
    database: Database
    tags: list[str] = Field(default_factory=list)


class DatabaseSection(_Section):
    drop_tables: list[str] = Field(
        default_factory=list,
        description="qualified tables removed from the agent's database (standard mode); "
        "in raw MIMIC-IV mode the whole derived schema is removed and this list documents "
        "the tables that matter",
    )

    @field_validator("drop_tables")
    @classmethod
    def _qualified_and_unique(cls, value: list[str]) -> list[str]:
        for name in value:
            if name.count(".") != 1 or not all(name.split(".")):
                raise ValueError(f"drop_tables entry {name!r} is not 'schema.table'")
        if len(set(value)) != len(value):
            raise ValueError("drop_tables has duplicate entries")
        return value


class ReferenceSection(_Section):
    file: str = Field(
        default="reference.sql",
        description="the family's reference query, relative to the family directory",
    )


class Controls(_Section):
    decoy_skill: str = Field(description="another family's canonical skill used as decoy")
    decoy_from: str | None = Field(
        default=None,
        pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$",
        description="the task whose copy of decoy_skill is given (the paper fixes one "
        "variant per skill); default: the closest carrier by database, mode and name",
    )
    sentinel: bool = Field(default=False, description="has an operational-spec.md")


class TaskCard(_Section):
    """The validated content of one ``task.toml``."""

    format_version: Literal[1] = CARD_FORMAT_VERSION
    metadata: Metadata
    database: DatabaseSection = Field(default_factory=DatabaseSection)
    reference: ReferenceSection = Field(default_factory=ReferenceSection)
    evaluation: EvaluationSpec
    controls: Controls

    @property
    def name(self) -> str:
        return self.metadata.name

    @property
    def family(self) -> str:
        return self.metadata.family

    @property
    def mode(self) -> Mode:
        return self.metadata.mode

    @property
    def dataset(self) -> Database:
        return self.metadata.database

    def effective_drop_tables(self, derived_tables: list[str]) -> list[str]:
        """What the agent's database lacks: the listed tables, plus every derived table
        (``derived_tables``, qualified) for a raw task on a dataset with a derived schema."""
        dropped = set(self.database.drop_tables)
        if self.mode == "raw" and DERIVED_SCHEMAS[self.dataset] is not None:
            dropped.update(derived_tables)
        return sorted(dropped)


def name_rule_problems(name: str, dataset: str, mode: str) -> list[str]:
    """What breaks the naming rules in a task name: the database prefix, and the -raw
    suffix that raw tasks, and only they, carry (datasets with derived tables only)."""
    problems = []
    prefix = TASK_PREFIXES[dataset]
    if not name.startswith(prefix):
        problems.append(f"a {dataset} task name starts with {prefix!r}")
    if DERIVED_SCHEMAS[dataset] and (mode == "raw") != name.endswith("-raw"):
        problems.append("raw tasks, and only they, end with '-raw'")
    return problems


def parse_card(text: str, path: Path) -> TaskCard:
    """Parse and validate card text; errors name the file and the offending field."""
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise toml_syntax_error(path, exc, text) from exc
    metadata = raw.get("metadata")
    if isinstance(metadata, dict) and "depends_on" in metadata:
        raise M4BenchError(
            f"{path}:{line_of(text, 'depends_on')}: depends_on is derived from the reference "
            "SQL and must not be written in the card",
            hint="delete the depends_on line; `m4bench tasks show` displays it",
        )
    try:
        return TaskCard.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(part) for part in first["loc"])
        leaf = str(first["loc"][-1]) if first["loc"] else ""
        raise M4BenchError(
            f"{path}:{line_of(text, leaf)}: [{field}] {first['msg']}",
            hint="see docs/tasks.md for the task.toml format",
        ) from exc


def load_card(path: Path) -> TaskCard:
    try:
        text = read_user_text(path)
    except FileNotFoundError as exc:
        raise M4BenchError(f"{path}: no task card", hint=f"every task needs a {CARD_FILE}") from exc
    return parse_card(text, path)


def line_of(text: str, needle: str) -> int:
    """1-based line of the first line containing ``needle`` (as a key or word); 1 if absent."""
    if needle:
        for number, line in enumerate(text.splitlines(), start=1):
            stripped = line.strip()
            if stripped.startswith((f"{needle} ", f"{needle}=", f"[{needle}", f"[{needle}]")):
                return number
        for number, line in enumerate(text.splitlines(), start=1):
            if needle in line:
                return number
    return 1
