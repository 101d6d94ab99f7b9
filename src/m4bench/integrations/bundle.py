"""Everything one (task, condition, schema) gives an agent and its scorer, from a data home.

A :class:`TaskBundle` is what ``m4bench run`` would prepare for the agent, without the
agent: the instruction (:func:`m4bench.runner.instruction.assemble_instruction`), the
condition's skills (:func:`m4bench.runner.conditions.condition_skills`), the task's agent
catalog and the Parquet files it reads, the ground truth and the evaluation spec the
scorer uses, and the oracle's statements. The Inspect tasks and the Harbor export are
built from it, so they give the agent what a native run gives it.

Inside the agent's working directory the skills sit at ``skills/<name>/SKILL.md`` and the
prompt lists them (name, description, path), as the built-in ``react`` agent does.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from m4bench.errors import M4BenchError
from m4bench.fileio import read_model
from m4bench.home import DataHome
from m4bench.provision.agent_catalog import agent_mounts, load_catalog_manifest
from m4bench.provision.equivalence import load_mapping
from m4bench.provision.ground_truth import (
    GroundTruthManifest,
    ground_truth_path,
    manifest_path_for,
)
from m4bench.provision.layout import (
    DICTIONARY_FILE,
    TaskCatalogPaths,
    check_schema_exists,
    task_catalog_paths,
)
from m4bench.provision.mapping import SchemaMapping
from m4bench.results.identity import CONDITIONS, SCHEMAS, Condition, SchemaName
from m4bench.runner.checks import check_source
from m4bench.runner.conditions import SkillFile, condition_skills, schema_rewriter
from m4bench.runner.instruction import (
    DATABASE_PATH,
    OUTPUT_PATH,
    assemble_instruction,
    read_dictionary,
)
from m4bench.runner.oracle_plan import oracle_statements
from m4bench.sources.defaults import default_source
from m4bench.tasks.catalog import Catalog, Task, load_catalog
from m4bench.tasks.evaluation import EvaluationSpec
from m4bench.tasks.skills import SKILL_FILE, split_front_matter

SKILLS_FOLDER = "skills"
"""Where the condition's skills sit in the agent's working directory."""
OUTPUT_FILE = OUTPUT_PATH.removeprefix("./")
DATABASE_FILE = DATABASE_PATH.removeprefix("./")


@dataclass(frozen=True)
class TaskBundle:
    """One task under one condition and schema, on one provisioned source."""

    task: Task
    condition: Condition
    schema_name: SchemaName
    source: str
    instruction: str
    skills: tuple[SkillFile, ...]
    truth: Path
    truth_sha256: str | None
    catalog_paths: TaskCatalogPaths
    data_files: tuple[tuple[Path, str], ...]
    """``(host file, path relative to the workdir)`` of every Parquet file the catalog reads."""
    present: frozenset[str]
    mapping: SchemaMapping | None

    @property
    def spec(self) -> EvaluationSpec:
        return self.task.card.evaluation

    @property
    def database(self) -> Path:
        """The task's agent catalog, which a run copies into its workdir."""
        return self.catalog_paths.catalog

    @property
    def timeout_seconds(self) -> float:
        return float(self.spec.timeout_seconds)

    def skill_files(self) -> dict[str, str]:
        """``{path relative to the workdir: SKILL.md text}`` of the condition's skills."""
        return {skill_path(skill.folder): skill.text for skill in self.skills}

    def prompt(self) -> str:
        """The instruction, then one line per skill the agent may read."""
        return self.instruction + skills_listing(self.skills)

    def oracle_statements(self, reference_sql: str | None = None) -> list[str]:
        """The oracle's SQL (or a mutant's, with ``reference_sql``), run in the workdir."""
        return oracle_statements(
            self.task, self.present, self.schema_name, self.mapping, reference_sql
        )


def skill_path(folder: str) -> str:
    return f"{SKILLS_FOLDER}/{folder}/{SKILL_FILE}"


def skills_listing(skills: Sequence[SkillFile]) -> str:
    """The paragraph that tells the agent which skills it may read (empty: none)."""
    if not skills:
        return ""
    lines = [
        f"- {skill.folder}: {_description(skill)} (read ./{skill_path(skill.folder)})"
        for skill in skills
    ]
    return "\nSkills you may read before starting:\n" + "\n".join(lines) + "\n"


def _description(skill: SkillFile) -> str:
    header, _body, _line = split_front_matter(skill.text, Path(skill_path(skill.folder)))
    description = header.get("description", "")
    return " ".join(str(description).split())


def check_identity(condition: str, schema: str) -> tuple[Condition, SchemaName]:
    """``condition`` and ``schema`` as the run identity's types, or a user error."""
    if condition not in CONDITIONS:
        raise M4BenchError(
            f"unknown condition {condition!r}", hint=f"choose one of: {', '.join(CONDITIONS)}"
        )
    if schema not in SCHEMAS:
        raise M4BenchError(
            f"unknown schema {schema!r}", hint=f"choose one of: {', '.join(SCHEMAS)}"
        )
    return condition, schema  # narrowed by the membership tests


def resolve_bundle(
    home: DataHome,
    task_name: str,
    condition: str = "no-skill",
    schema: str = "native",
    source: str | None = None,
    catalog: Catalog | None = None,
) -> TaskBundle:
    """The bundle of ``task_name``; raises a user error naming what is missing (the
    source, its ground truth or agent catalog, what the condition needs) and the command
    that builds it."""
    cond, schema_name = check_identity(condition, schema)
    catalog = catalog or load_catalog()
    task = catalog.task(task_name)
    source = source or default_source(task.card.dataset)
    check_schema_exists(task.card.dataset, schema_name, f"task {task.name} reads")
    check_source(home, source, task)
    truth = ground_truth_path(home, source, task)
    if not truth.is_file():
        raise M4BenchError(
            f"{truth}: no ground truth for {task.name}",
            hint=f"build it with `m4bench setup --source {source} --task {task.name}`",
        )
    paths = task_catalog_paths(home, source, schema_name, task.name)
    if not paths.manifest.exists():
        raise M4BenchError(
            f"{paths.root}: no agent database for {task.name} ({schema_name} schema)",
            hint=f"build it with `m4bench setup --source {source} --task {task.name} "
            f"--schema {schema_name}`",
        )
    mapping = load_mapping(home, source) if schema_name != "native" else None
    dictionary = None if schema_name == "native" else read_dictionary(paths.root / DICTIONARY_FILE)
    skills = condition_skills(task, cond, catalog, schema_rewriter(schema_name, mapping))
    return TaskBundle(
        task=task,
        condition=cond,
        schema_name=schema_name,
        source=source,
        instruction=assemble_instruction(task, cond, schema_name, dictionary),
        skills=tuple(skills),
        truth=truth,
        truth_sha256=_truth_sha256(truth),
        catalog_paths=paths,
        data_files=tuple(agent_mounts(home, source, schema_name, task.name)),
        present=frozenset(load_catalog_manifest(paths).relations),
        mapping=mapping,
    )


def _truth_sha256(truth: Path) -> str | None:
    manifest = manifest_path_for(truth)
    if not manifest.exists():
        return None
    return read_model(manifest, GroundTruthManifest).output_sha256
