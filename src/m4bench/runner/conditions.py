"""Which skills a condition gives the agent.

* ``no-skill`` and ``operational-spec``: none (the spec goes into the instruction).
* ``with-skill``: the task's canonical skills.
* ``with-skill-decoy``: another family's canonical skill, named by the card.
* ``with-skill-rawsql``: the task's reference query wrapped as a skill.
* ``with-skill-all``: every skill of the catalog, each in the variant whose carrier
  task best matches this task: the task itself first, then the same database, then the
  same mode, then a carrier holding that skill alone (the sepsis-3 task bundles its own
  copies of its input skills), then the carrier's name. So a MIMIC-IV task never gets the
  eICU variant of a skill that has a MIMIC-IV one, and a raw task gets raw variants where
  they exist.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from m4bench.errors import M4BenchError
from m4bench.fileio import read_user_text
from m4bench.provision.layout import PerturbedVariant
from m4bench.provision.mapping import SchemaMapping
from m4bench.provision.rewrite import transform_sql
from m4bench.results.identity import Condition, SchemaName
from m4bench.tasks.catalog import SKILLS_DIR, Catalog, Task
from m4bench.tasks.skills import SKILL_FILE, decoy_skill, raw_sql_skill


@dataclass(frozen=True)
class SkillFile:
    """One skill to place: its folder name, its SKILL.md text and where it came from."""

    folder: str
    text: str
    origin: str


def check_condition(
    task: Task,
    condition: Condition,
    catalog: Catalog,
    rewrite: Callable[[str], str] | None = None,
) -> None:
    """What ``condition`` needs of ``task``, checked before a run starts: its operational
    spec, its canonical skills, another family carrying its decoy skill, its reference
    query (rewritten to the run's schema). Raises a user error naming what is missing."""
    if condition == "operational-spec":
        operational_spec(task)
    condition_skills(task, condition, catalog, rewrite)


def operational_spec(task: Task) -> str:
    """The task's operational specification, which the ``operational-spec`` condition
    appends to the instruction; a user error when the task has none."""
    spec = (task.operational_spec or "").strip()
    if not spec:
        raise M4BenchError(
            f"{task.operational_spec_path}: the operational-spec condition needs this "
            f"file and task {task.name} has none (or it is empty)",
            hint="choose a task with an operational spec (`m4bench tasks list --json`: "
            '"sentinel": true), or another condition',
        )
    return spec


def schema_rewriter(
    schema: SchemaName, mapping: SchemaMapping | None
) -> Callable[[str], str] | None:
    """How a query of the native schema becomes one of ``schema`` (None: unchanged)."""
    if mapping is None or schema == "native":
        return None
    variant: PerturbedVariant = schema
    return lambda sql: transform_sql(sql, mapping, variant)


def condition_skills(
    task: Task,
    condition: Condition,
    catalog: Catalog,
    rewrite: Callable[[str], str] | None = None,
) -> list[SkillFile]:
    """The skills ``condition`` gives ``task``, sorted by folder name. ``rewrite`` turns
    the reference query of the raw-SQL skill into the run's schema (perturbed runs)."""
    if condition in ("no-skill", "operational-spec"):
        return []
    if condition == "with-skill":
        return _canonical(task)
    if condition == "with-skill-decoy":
        folder, text = decoy_skill(task, catalog)
        return [SkillFile(folder, text, f"decoy:{folder}")]
    if condition == "with-skill-rawsql":
        folder, text = raw_sql_skill(task)
        if rewrite is not None:
            text = text.replace(task.reference_sql.strip(), rewrite(task.reference_sql).strip())
        return [SkillFile(folder, text, f"reference:{task.family}/{task.card.reference.file}")]
    return all_skills(task, catalog)


def _canonical(task: Task) -> list[SkillFile]:
    if not task.skill_paths:
        raise M4BenchError(
            f"{task.dir / SKILLS_DIR}: the with-skill condition needs the task's canonical "
            f"skills (<name>/{SKILL_FILE}) and task {task.name} has none",
            hint="add the task's skill (see docs/tasks.md), or choose another condition",
        )
    return [
        SkillFile(name, read_user_text(path), f"{task.name}/{name}")
        for name, path in sorted(task.skill_paths.items())
    ]


def all_skills(task: Task, catalog: Catalog) -> list[SkillFile]:
    """Every skill name of the task's peers in the catalog (the shipped tasks for a shipped
    task), each from its best-matching carrier task."""
    carriers: dict[str, list[Task]] = {}
    for other in catalog.peers(task):
        for name in other.skill_paths:
            carriers.setdefault(name, []).append(other)
    chosen = []
    for name in sorted(carriers):
        best = min(
            carriers[name],
            key=lambda other: (
                other.name != task.name,
                other.card.dataset != task.card.dataset,
                other.card.mode != task.card.mode,
                len(other.skill_paths),
                other.name,
            ),
        )
        path = best.skill_paths[name]
        chosen.append(SkillFile(name, read_user_text(path), f"{best.name}/{name}"))
    return chosen
