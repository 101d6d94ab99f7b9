"""Mutants: known-wrong variants of a family's reference, stored beside it.

A family folder may hold ``mutants.toml``. Each mutant is the reference query with one
small, named, clinically plausible mistake (a window off by hours, a strict bin
boundary, a unit not converted, a filter dropped), stored as exact-text edits of the
reference: its SQL is built at load time, so a fix to the reference reaches every
mutant of it.
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

    [[mutant.edits]]                   # each find occurs exactly once in the reference
    find = "WHERE charttime >= intime - INTERVAL 6 HOUR"
    replace = "WHERE charttime >= intime"

    [[exempt]]                         # a scored column no plausible mistake changes
    column = "gender"
    reason = "copied from the patient record; no rule of the concept derives it"

A mutant applies to every task whose card names its reference file (or, when ``tasks``
is given, to those of them only). Its SQL starts with a ``-- KNOWN WRONG`` line naming
it and its rationale, followed by the edited reference.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from m4bench.errors import M4BenchError
from m4bench.fileio import read_toml_model, read_user_text, reject_duplicate_names
from m4bench.tasks.catalog import Catalog, Task

MUTANTS_FILE = "mutants.toml"


class MutantEdit(BaseModel):
    """One exact-text edit: ``find`` occurs exactly once in the reference."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    find: str = Field(min_length=1, description="text of the reference, found exactly once")
    replace: str = Field(description="what it becomes in the mutant")


FIRST_MUTANT = "first"
"""Reserved: agent ``mutant:first`` is a task's first mutant, wherever it runs."""


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
    edits: list[MutantEdit] = Field(
        min_length=1, description="the exact-text edits that turn the reference into it"
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
    """One mutant of one family: its edits applied to its reference file."""

    family: str
    spec: MutantSpec
    family_dir: Path

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def path(self) -> Path:
        """Where the mutant is declared (findings and errors point here)."""
        return self.family_dir / MUTANTS_FILE

    @property
    def reference_path(self) -> Path:
        return self.family_dir / self.spec.reference

    @property
    def header(self) -> str:
        """The first line of the mutant's SQL: which mutant it is and why it is wrong."""
        rationale = self.spec.rationale
        end = "" if rationale.endswith(".") else "."
        return f"-- KNOWN WRONG (mutant {self.name} of {self.spec.reference}): {rationale}{end}\n"

    @cached_property
    def sql(self) -> str:
        try:
            reference = read_user_text(self.reference_path)
        except FileNotFoundError as exc:
            raise M4BenchError(
                f"{self.path}: mutant {self.name!r} changes {self.spec.reference}, "
                "which does not exist",
                hint=f"fix the mutant's reference in {MUTANTS_FILE}",
            ) from exc
        return self.header + apply_edits(reference, self.spec.edits, self.describe)

    def describe(self, index: int) -> str:
        """``file: mutant NAME, edit N`` for messages about one of its edits."""
        return f"{self.path}: mutant {self.name}, edit {index + 1}"

    def applies_to(self, task: Task) -> bool:
        if task.family != self.family or task.card.reference.file != self.spec.reference:
            return False
        return self.spec.tasks is None or task.name in self.spec.tasks


def apply_edits(reference: str, edits: list[MutantEdit], where: Callable[[int], str]) -> str:
    """``reference`` with every edit applied; each ``find`` must occur exactly once.

    Edits are located in the unchanged reference and must not overlap. ``where(i)``
    names edit ``i`` in error messages.
    """
    spans: list[tuple[int, int, int]] = []
    for index, edit in enumerate(edits):
        found = occurrences(reference, edit.find)
        if found != 1:
            raise M4BenchError(
                f"{where(index)}: its find text occurs {found} times in the reference, not once",
                hint="add neighbouring lines of the reference to the find (and replace) text",
            )
        start = reference.index(edit.find)
        spans.append((start, start + len(edit.find), index))
    pieces: list[str] = []
    position = 0
    for start, end, index in sorted(spans):
        if start < position:
            raise M4BenchError(
                f"{where(index)}: overlaps another edit of the same mutant",
                hint="merge the two edits into one",
            )
        pieces += [reference[position:start], edits[index].replace]
        position = end
    pieces.append(reference[position:])
    return "".join(pieces)


def occurrences(text: str, part: str) -> int:
    """How many times ``part`` occurs in ``text``, overlapping occurrences included."""
    count = 0
    start = text.find(part)
    while start != -1:
        count += 1
        start = text.find(part, start + 1)
    return count


def parse_mutants_file(path: Path) -> MutantsFile:
    """Parse and validate ``mutants.toml``; errors name the file and field."""
    parsed = read_toml_model(path, MutantsFile, "docs/validity.md") or MutantsFile()
    reject_duplicate_names(path, [m.name for m in parsed.mutant], "mutant")
    if any(m.name == FIRST_MUTANT for m in parsed.mutant):
        raise M4BenchError(
            f"{path}: a mutant is named {FIRST_MUTANT!r}, which is reserved "
            f"(agent mutant:{FIRST_MUTANT} is every task's first mutant)",
            hint="give that mutant a name that says what it gets wrong",
        )
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
