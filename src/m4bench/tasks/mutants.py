"""Mutants: known-wrong variants of a family's reference, stored beside it.

A family folder may hold ``mutants.toml`` and a ``mutants/`` folder of SQL files. Each
mutant is the reference query with one small, named, clinically plausible mistake (a
window off by hours, a strict bin boundary, a unit not converted, a filter dropped).
They prove that the scorer tells a right derivation from a plausible wrong one: the
audit (:mod:`m4bench.validity`) scores every mutant and expects each below 1.0, and
the ``mutant:NAME`` agent runs one through the harness like any agent.

``mutants.toml``::

    format_version = 1

    [[mutant]]
    name = "window-shifted-6h"
    rationale = "the 24-hour window starts at admission instead of 6 hours before"
    reference = "reference.sql"        # the reference it changes (default)
    tasks = ["mimic-gcs-24h-raw"]      # optional: only these tasks of that reference
    moves = ["gcs_min"]                # scored columns it is meant to move (optional)

    [[exempt]]                         # a scored column no plausible mistake changes
    column = "gender"
    reason = "copied from the patient record; no rule of the concept derives it"

A mutant applies to every task whose card names its reference file (or, when ``tasks``
is given, to those of them only).
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from m4bench.errors import M4BenchError
from m4bench.tasks.catalog import Catalog, Task

MUTANTS_FILE = "mutants.toml"
MUTANTS_DIR = "mutants"


class MutantSpec(BaseModel):
    """One ``[[mutant]]`` entry of ``mutants.toml``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$")
    rationale: str = Field(min_length=10, description="the mistake, in one line")
    reference: str = Field(default="reference.sql", description="the reference it changes")
    tasks: list[str] | None = Field(
        default=None, description="the tasks it applies to; None: every task of its reference"
    )
    moves: list[str] = Field(
        default_factory=list, description="scored columns the mistake is meant to move"
    )


class ColumnExemption(BaseModel):
    """A scored column no plausible mistake changes (e.g. a value copied from the record)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    column: str
    reason: str = Field(min_length=10)


class MutantsFile(BaseModel):
    """The validated content of a family's ``mutants.toml``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    format_version: Literal[1] = 1
    mutant: list[MutantSpec] = Field(default_factory=list)
    exempt: list[ColumnExemption] = Field(
        default_factory=list, description="scored columns no mutant needs to move, with why"
    )


@dataclass(frozen=True)
class Mutant:
    """One mutant of one family, with its SQL file."""

    family: str
    spec: MutantSpec
    family_dir: Path

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def path(self) -> Path:
        return self.family_dir / MUTANTS_DIR / f"{self.spec.name}.sql"

    @property
    def reference_path(self) -> Path:
        return self.family_dir / self.spec.reference

    @cached_property
    def sql(self) -> str:
        try:
            return self.path.read_text(encoding="utf-8")
        except FileNotFoundError as exc:
            raise M4BenchError(
                f"{self.path}: mutant {self.name!r} has no SQL file",
                hint=f"add the file or remove the entry from {MUTANTS_FILE}",
            ) from exc

    def applies_to(self, task: Task) -> bool:
        if task.family != self.family or task.card.reference.file != self.spec.reference:
            return False
        return self.spec.tasks is None or task.name in self.spec.tasks


def parse_mutants_file(path: Path) -> MutantsFile:
    """Parse and validate ``mutants.toml``; errors name the file and field."""
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return MutantsFile()
    except tomllib.TOMLDecodeError as exc:
        raise M4BenchError(f"{path}: not valid TOML: {exc}", hint="fix the syntax") from exc
    try:
        parsed = MutantsFile.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(part) for part in first["loc"])
        raise M4BenchError(
            f"{path}: [{field}] {first['msg']}", hint="see docs/validity.md for the format"
        ) from exc
    names = [m.name for m in parsed.mutant]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise M4BenchError(f"{path}: duplicate mutant names {duplicates}")
    return parsed


def family_mutants(family_dir: Path) -> list[Mutant]:
    """The mutants of the family at ``family_dir``, in file order."""
    parsed = parse_mutants_file(family_dir / MUTANTS_FILE)
    return [
        Mutant(family=family_dir.name, spec=spec, family_dir=family_dir) for spec in parsed.mutant
    ]


def exempt_columns(task: Task) -> dict[str, str]:
    """``{column: reason}`` of the scored columns of ``task`` no mutant needs to move."""
    parsed = parse_mutants_file(task.family_dir / MUTANTS_FILE)
    scored = set(task.card.evaluation.scored_columns)
    return {e.column: e.reason for e in parsed.exempt if e.column in scored}


def task_mutants(task: Task) -> list[Mutant]:
    """The mutants that apply to ``task`` (those of its reference file)."""
    return [m for m in family_mutants(task.family_dir) if m.applies_to(task)]


def find_mutant(task: Task, name: str) -> Mutant:
    """The mutant ``name`` of ``task``; an unknown name lists the known ones."""
    known = task_mutants(task)
    for mutant in known:
        if mutant.name == name:
            return mutant
    listed = ", ".join(m.name for m in known) or "none"
    raise M4BenchError(
        f"task {task.name} has no mutant named {name!r} (known: {listed})",
        hint=f"see {task.family_dir / MUTANTS_FILE}",
    )


def catalog_mutant_source(catalog: Catalog) -> Callable[[str, str], str]:
    """A ``(task name, mutant name) -> SQL`` lookup over ``catalog`` for the runner."""

    def lookup(task_name: str, mutant_name: str) -> str:
        return find_mutant(catalog.task(task_name), mutant_name).sql

    return lookup
