"""Skills: the SKILL.md format and the variants generated at provisioning time.

A task's canonical skills live in its catalog folder. Two control variants are never
stored: the raw-reference-SQL skill (the family's reference query wrapped in a SKILL.md
with front matter, so every agent loads it) and the decoy (another family's canonical
skill, named in the card's ``[controls] decoy_skill``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from m4bench.errors import M4BenchError
from m4bench.fileio import atomic_write_text, read_user_text

if TYPE_CHECKING:
    from m4bench.tasks.catalog import Catalog, Task

SKILL_FILE = "SKILL.md"
FRONT_MATTER_FENCE = "---"


class SkillFrontMatter(BaseModel):
    """The YAML header every SKILL.md carries; agents index skills by it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$")
    description: str = Field(min_length=20)
    version: str = Field(pattern=r"^\d+\.\d+(\.\d+)?$")
    category: str = Field(min_length=1)


@dataclass(frozen=True)
class Skill:
    """One SKILL.md: where it is, its header and its body."""

    path: Path
    front_matter: SkillFrontMatter
    body: str
    body_line: int

    @property
    def name(self) -> str:
        return self.front_matter.name

    @property
    def text(self) -> str:
        return render_skill(self.front_matter, self.body)


def split_front_matter(text: str, path: Path) -> tuple[dict[str, object], str, int]:
    """Split ``---`` YAML front matter from the body; return (header, body, body's 1st line)."""
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].strip() != FRONT_MATTER_FENCE:
        raise M4BenchError(
            f"{path}:1: SKILL.md must start with '---' YAML front matter",
            hint="add name, description, version and category between two '---' lines",
        )
    for index in range(1, len(lines)):
        if lines[index].strip() == FRONT_MATTER_FENCE:
            try:
                header = yaml.safe_load("".join(lines[1:index])) or {}
            except yaml.YAMLError as exc:
                raise M4BenchError(f"{path}:2: front matter is not valid YAML: {exc}") from exc
            if not isinstance(header, dict):
                raise M4BenchError(f"{path}:2: front matter must be a YAML mapping")
            return header, "".join(lines[index + 1 :]), index + 2
    raise M4BenchError(f"{path}:1: front matter is not closed by a '---' line")


def parse_skill(path: Path) -> Skill:
    text = read_user_text(path)
    header, body, body_line = split_front_matter(text, path)
    try:
        front = SkillFrontMatter.model_validate(header)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(part) for part in first["loc"]) or "front matter"
        raise M4BenchError(
            f"{path}:2: front matter field {field!r}: {first['msg']}",
            hint="front matter needs name, description, version and category",
        ) from exc
    if front.name != path.parent.name:
        raise M4BenchError(
            f"{path}:2: front matter name {front.name!r} differs from its folder "
            f"{path.parent.name!r}",
            hint="a skill's folder is named after the skill",
        )
    return Skill(path=path, front_matter=front, body=body, body_line=body_line)


def render_skill(front: SkillFrontMatter, body: str) -> str:
    header = yaml.safe_dump(front.model_dump(), sort_keys=False, allow_unicode=True)
    return f"{FRONT_MATTER_FENCE}\n{header}{FRONT_MATTER_FENCE}\n{body}"


def raw_sql_skill(task: Task) -> tuple[str, str]:
    """The raw-reference-SQL control: ``(folder name, SKILL.md text)``."""
    front = SkillFrontMatter(
        name=task.name,
        description=(
            f"Reference query used to score the {task.name} task; run it or adapt it "
            "to produce the requested output."
        ),
        version="1.0",
        category="reference-sql",
    )
    body = (
        f"# Reference query for {task.name}\n\n"
        "This query produces the answer the task is scored against, on a database that "
        "still holds every table it reads. Where a table it reads is missing from your "
        "database, rebuild that table first.\n\n"
        f"```sql\n{task.reference_sql.strip()}\n```\n"
    )
    return task.name, render_skill(front, body)


def decoy_skill(task: Task, catalog: Catalog) -> tuple[str, str]:
    """The decoy control: another family's canonical skill named by the card.

    The card's ``decoy_from`` names the carrier task (the paper gives one fixed variant of
    each skill as decoy); without it, among the tasks that carry that skill, prefer the
    same database, then the same mode, then the task name, so the choice never depends on
    filesystem order.
    """
    wanted = task.card.controls.decoy_skill
    carriers = [
        other
        for other in catalog.peers(task)
        if other.family != task.family and wanted in other.skill_paths
    ]
    if not carriers:
        raise M4BenchError(
            f"{task.card_path}: decoy skill {wanted!r} is not a canonical skill of any other "
            "family in the catalog",
            hint="name a skill that another family's task carries",
        )
    chosen_from = task.card.controls.decoy_from
    if chosen_from is not None:
        carriers = [other for other in carriers if other.name == chosen_from]
        if not carriers:
            raise M4BenchError(
                f"{task.card_path}: decoy_from {chosen_from!r} is no task of another family "
                f"that carries {wanted!r}",
                hint="name a task whose skills folder holds the decoy skill, or drop decoy_from",
            )
    carriers.sort(
        key=lambda other: (
            other.card.dataset != task.card.dataset,
            other.card.mode != task.card.mode,
            other.name,
        )
    )
    chosen = parse_skill(carriers[0].skill_paths[wanted])
    return wanted, read_user_text(chosen.path)


def write_skill(target_dir: Path, folder: str, text: str) -> Path:
    """Write a generated skill as ``target_dir/<folder>/SKILL.md`` atomically."""
    path = target_dir / folder / SKILL_FILE
    atomic_write_text(path, text)
    return path
