"""The task catalog: every task folder under ``catalog/<family>/<task>/``, loaded and linked.

The shipped catalog lives in the package; ``$M4BENCH_TASKS`` names more folders of the
same layout (a research group's own tasks), whose tasks join the shipped ones. A task
bundles its card, instruction, canonical skills, optional operational spec, the family's
reference SQL and provenance, and the concepts it depends on (read from the reference SQL,
closed over the concept library's own dependency graph when present).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from functools import cached_property
from pathlib import Path
from typing import Annotated, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from sqlglot import exp

from m4bench.concepts.library import ConceptLibrary
from m4bench.errors import M4BenchError
from m4bench.fileio import read_user_text
from m4bench.sources.datasets import DERIVED_SCHEMAS
from m4bench.tasks.card import CARD_FILE, TaskCard, load_card
from m4bench.tasks.reference import (
    derived_names,
    parse_statement,
    statement_columns,
    statement_tables,
)
from m4bench.tasks.skills import SKILL_FILE, Skill, parse_skill
from m4bench.wording import close_names

CATALOG_ROOT = Path(__file__).parent / "catalog"
TASKS_ENV = "M4BENCH_TASKS"
INSTRUCTION_FILE = "instruction.md"
OPERATIONAL_SPEC_FILE = "operational-spec.md"
PROVENANCE_FILE = "PROVENANCE.yaml"
SKILLS_DIR = "skills"


class ProvenanceSource(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    url: str
    description: str
    license: str


# Who created or reviewed a family: a name or a group, not blank.
Person = Annotated[str, Field(pattern=r"\S")]


class ProvenanceCreated(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    by: Person
    date: date


class ProvenanceReview(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    by: Person
    date: date
    scope: str
    notes: str = ""


class KnownDeviation(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    convention: str
    reason: str


class Provenance(BaseModel):
    """A family's ``PROVENANCE.yaml``: where its rules come from and who reviewed them."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    format_version: Literal[1] = 1
    family: str
    applies_to: list[str] = Field(min_length=1)
    sources: list[ProvenanceSource] = Field(min_length=1)
    references: list[str] = Field(default_factory=list)
    created: ProvenanceCreated
    reviews: list[ProvenanceReview] = Field(default_factory=list)
    review_status: Literal["pending", "reviewed"]
    known_deviations: list[KnownDeviation] = Field(default_factory=list)
    tie_breaks: list[str] = Field(default_factory=list)


def load_provenance(path: Path) -> Provenance:
    try:
        raw = yaml.safe_load(read_user_text(path))
    except FileNotFoundError as exc:
        raise M4BenchError(f"{path}: missing", hint="every family needs a PROVENANCE.yaml") from exc
    except yaml.YAMLError as exc:
        raise M4BenchError(f"{path}: not valid YAML: {exc}") from exc
    try:
        return Provenance.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        field_name = ".".join(str(part) for part in first["loc"])
        raise M4BenchError(f"{path}: field {field_name!r}: {first['msg']}") from exc


@dataclass(frozen=True)
class Task:
    """One task folder, loaded."""

    card: TaskCard
    dir: Path
    concept_graph: Mapping[str, frozenset[str]] = field(default_factory=dict, repr=False)

    @property
    def name(self) -> str:
        return self.card.name

    @property
    def family(self) -> str:
        return self.card.family

    @property
    def family_dir(self) -> Path:
        return self.dir.parent

    @property
    def card_path(self) -> Path:
        return self.dir / CARD_FILE

    @property
    def instruction_path(self) -> Path:
        return self.dir / INSTRUCTION_FILE

    @property
    def operational_spec_path(self) -> Path:
        return self.dir / OPERATIONAL_SPEC_FILE

    @property
    def reference_path(self) -> Path:
        return self.family_dir / self.card.reference.file

    @property
    def provenance_path(self) -> Path:
        return self.family_dir / PROVENANCE_FILE

    @cached_property
    def instruction(self) -> str:
        return _read(self.instruction_path)

    @cached_property
    def operational_spec(self) -> str | None:
        path = self.operational_spec_path
        return read_user_text(path) if path.exists() else None

    @cached_property
    def reference_sql(self) -> str:
        return _read(self.reference_path)

    @cached_property
    def provenance(self) -> Provenance:
        return load_provenance(self.provenance_path)

    @cached_property
    def skill_paths(self) -> dict[str, Path]:
        """Canonical skills: ``{folder name: SKILL.md path}``, sorted by name."""
        root = self.dir / SKILLS_DIR
        if not root.is_dir():
            return {}
        return {
            child.name: child / SKILL_FILE
            for child in sorted(root.iterdir())
            if child.is_dir() and (child / SKILL_FILE).exists()
        }

    @property
    def skills(self) -> dict[str, Skill]:
        """Canonical skills, parsed and validated: ``{name: Skill}``."""
        return {name: parse_skill(path) for name, path in self.skill_paths.items()}

    def render_instruction(self, output_path: str = "./output.csv") -> str:
        return self.instruction.replace("{output_path}", output_path)

    @cached_property
    def direct_dependencies(self) -> list[str]:
        """Derived concepts the reference SQL reads by name."""
        schema = DERIVED_SCHEMAS[self.card.dataset]
        if schema is None:
            return []
        return sorted(derived_names(self.reference_tables, schema))

    @cached_property
    def reference_tree(self) -> exp.Expr:
        """The reference SQL parsed, once per task: read it, never change it (the lint,
        the cases and the runs of a reference all read this one parse)."""
        return parse_statement(self.reference_sql, str(self.reference_path))

    @cached_property
    def reference_tables(self) -> set[str]:
        """Qualified names of the tables the reference reads (CTE names excluded)."""
        return statement_tables(self.reference_tree)

    @property
    def reference_columns(self) -> list[str]:
        """The reference's output columns, read statically."""
        return statement_columns(self.reference_tree, str(self.reference_path))

    @cached_property
    def depends_on(self) -> list[str]:
        """Direct dependencies closed transitively over the concept graph (sorted)."""
        seen: set[str] = set()
        stack = list(self.direct_dependencies)
        while stack:
            name = stack.pop()
            if name in seen:
                continue
            seen.add(name)
            stack.extend(self.concept_graph.get(name, frozenset()))
        return sorted(seen)

    @cached_property
    def dependency_depth(self) -> int:
        """Longest chain of concepts under the task: 1 when it reads only source tables."""
        return 1 + max(
            (concept_depth(n, self.concept_graph) for n in self.direct_dependencies), default=0
        )


def concept_depth(
    name: str, graph: Mapping[str, frozenset[str]], _path: frozenset[str] = frozenset()
) -> int:
    """1 for a concept that reads only source tables, else 1 + its deepest dependency."""
    if name in _path:
        raise M4BenchError(f"concept dependency cycle through {name!r}")
    deps = graph.get(name, frozenset())
    return 1 + max((concept_depth(d, graph, _path | {name}) for d in deps), default=0)


@dataclass(frozen=True)
class Catalog:
    """Every task of the catalog, sorted by name; ``roots`` are the folders it came from."""

    roots: tuple[Path, ...]
    tasks: tuple[Task, ...]

    @property
    def names(self) -> list[str]:
        return [task.name for task in self.tasks]

    @property
    def families(self) -> list[str]:
        return sorted({task.family for task in self.tasks})

    def task(self, name: str) -> Task:
        for candidate in self.tasks:
            if candidate.name == name:
                return candidate
        close = close_names(name, self.names)
        raise M4BenchError(
            f"no task named {name!r} in {', '.join(str(r) for r in self.roots)}",
            hint=f"did you mean {', '.join(close)}?"
            if close
            else f"see `m4bench tasks list`; folders of your own tasks go in ${TASKS_ENV}",
        )

    def family(self, family: str) -> list[Task]:
        return [task for task in self.tasks if task.family == family]

    def peers(self, task: Task) -> tuple[Task, ...]:
        """The tasks whose skills ``task``'s controls (decoy, every skill) may draw on.

        A task of the first root (the shipped catalog) sees that root alone, so its
        controls stay the same whatever ``$M4BENCH_TASKS`` adds; another task sees all.
        """
        base = self.roots[0]
        if not task.dir.is_relative_to(base):
            return self.tasks
        return tuple(other for other in self.tasks if other.dir.is_relative_to(base))


def task_dirs(root: Path) -> list[Path]:
    """Every ``<family>/<task>/`` folder holding a card, sorted; hidden folders (a copy
    being written, an editor's backup) are not tasks."""
    if not root.is_dir():
        raise M4BenchError(f"task catalog {root} does not exist")
    cards = root.glob(f"*/*/{CARD_FILE}")
    return sorted(
        card.parent
        for card in cards
        if not any(part.startswith(".") for part in card.relative_to(root).parts[:2])
    )


def extra_task_roots(value: str | None = None) -> tuple[Path, ...]:
    """The folders named by ``$M4BENCH_TASKS`` (or ``value``), separated by ``os.pathsep``.

    Each must be an existing folder laid out as the shipped catalog
    (``<family>/<task>/task.toml``); the shipped catalog itself is skipped if named.
    """
    raw = os.environ.get(TASKS_ENV, "") if value is None else value
    roots: list[Path] = []
    for part in raw.split(os.pathsep):
        if not part.strip():
            continue
        path = Path(part).expanduser().resolve()
        if not path.is_dir():
            raise M4BenchError(
                f"{TASKS_ENV}: {part!r} is not a folder",
                hint="set it to folders laid out as <family>/<task>/task.toml, "
                f"separated by {os.pathsep!r} (see docs/tasks.md)",
            )
        if path != CATALOG_ROOT.resolve() and path not in roots:
            roots.append(path)
    return tuple(roots)


def catalog_roots(
    root: Path | None = None, extra: Sequence[Path] | None = None
) -> tuple[Path, ...]:
    """``root`` (default: the shipped catalog), then ``extra`` (default: ``$M4BENCH_TASKS``)."""
    return (root or CATALOG_ROOT, *(extra_task_roots() if extra is None else extra))


def catalog_task_dirs(roots: Sequence[Path]) -> list[Path]:
    """Every task folder of every root, root by root (each root's folders sorted)."""
    return [path for root in roots for path in task_dirs(root)]


def family_clashes(folders: Sequence[Path]) -> dict[str, list[Path]]:
    """``{family: its folders}`` for each family name whose task ``folders`` lie in more
    than one family folder (two roots), in the order the folders are given.

    A family's reference, provenance and mutants live in one folder, so a user's catalog
    adds families; it does not add tasks to a family of another root.
    """
    seen: dict[str, list[Path]] = {}
    for family in dict.fromkeys(path.parent for path in folders):
        seen.setdefault(family.name, []).append(family)
    return {name: paths for name, paths in sorted(seen.items()) if len(paths) > 1}


def repeated_names(tasks: Sequence[Task]) -> dict[str, list[Task]]:
    """``{name: its tasks, in the given order}`` for each task name given more than once."""
    by_name: dict[str, list[Task]] = {}
    for task in tasks:
        by_name.setdefault(task.name, []).append(task)
    return {name: found for name, found in sorted(by_name.items()) if len(found) > 1}


def clash_message(family: str, folders: Sequence[Path]) -> str:
    where = " and ".join(str(path) for path in folders)
    return f"family {family!r} is defined in {where}: give the family folder a new name"


def load_catalog(root: Path | None = None, *, extra_roots: Sequence[Path] | None = None) -> Catalog:
    """Load every task; a malformed card stops the load with its file and field named.

    The tasks of ``root`` (default: the shipped catalog) and of ``extra_roots`` (default:
    the folders of ``$M4BENCH_TASKS``).
    """
    roots = catalog_roots(root, extra_roots)
    folders = catalog_task_dirs(roots)
    clashes = family_clashes(folders)
    if clashes:
        family, family_dirs = next(iter(clashes.items()))
        raise M4BenchError(clash_message(family, family_dirs), hint=f"check {TASKS_ENV}")
    graph = load_concept_graph()
    tasks = [
        Task(card=_read_card(path, roots[0]), dir=path, concept_graph=graph) for path in folders
    ]
    tasks.sort(key=lambda task: task.name)
    repeated = repeated_names(tasks)
    if repeated:
        name, found = next(iter(repeated.items()))
        places = " and ".join(str(task.dir) for task in found)
        raise M4BenchError(
            f"task {name!r} is defined twice: {places}",
            hint="task names must be unique across the catalog and " + TASKS_ENV,
        )
    return Catalog(roots=roots, tasks=tuple(tasks))


def _read_card(folder: Path, first_root: Path) -> TaskCard:
    """The folder's card; a broken card of a user's folder says how to get on meanwhile."""
    try:
        return load_card(folder / CARD_FILE)
    except M4BenchError as exc:
        if folder.is_relative_to(first_root):
            raise
        hint = (
            f"this task is in one of your ${TASKS_ENV} folders: fix it (`m4bench tasks lint` "
            f"lists every problem), or leave its folder out of ${TASKS_ENV} meanwhile"
        )
        raise M4BenchError(exc.message, hint=f"{exc.hint}; {hint}" if exc.hint else hint) from exc


def load_concept_graph(dataset: str = "mimic-iv") -> dict[str, frozenset[str]]:
    """``{concept: concepts it reads}`` from the concept library.

    A library that does not load (a concept under construction) yields an empty graph:
    tasks then show only their direct dependencies, and ``m4bench tasks lint`` reports
    the library error.
    """
    try:
        library = ConceptLibrary.load(dataset)
    except M4BenchError:
        return {}
    return {name: frozenset(deps) for name, deps in library.edges().items()}


def _read(path: Path) -> str:
    try:
        return read_user_text(path)
    except FileNotFoundError as exc:
        raise M4BenchError(f"{path}: missing", hint="see docs/tasks.md for a task's files") from exc
