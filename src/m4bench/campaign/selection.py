"""Which tasks a profile block names: an explicit list, or a selector over task facts.

Selectors read only a few facts of each task (family, mode, database, sentinel,
dependency depth), gathered once from the task catalog into :class:`TaskFacts`, so
planning stays fast and tests can describe a catalog without building one.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field

from m4bench.errors import M4BenchError
from m4bench.sources.datasets import Dataset

if TYPE_CHECKING:
    from m4bench.tasks.catalog import Catalog


@dataclass(frozen=True)
class TaskFacts:
    name: str
    family: str
    mode: str
    database: str
    sentinel: bool
    depth: int


class TaskSelector(BaseModel):
    """Every condition given must hold; an empty selector selects every task."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    family: list[str] | None = None
    mode: Literal["standard", "raw"] | None = None
    database: Dataset | None = None
    sentinel: bool | None = None
    min_depth: int | None = Field(None, ge=1)
    max_depth: int | None = Field(None, ge=1)

    def matches(self, task: TaskFacts) -> bool:
        checks = (
            self.family is None or task.family in self.family,
            self.mode is None or task.mode == self.mode,
            self.database is None or task.database == self.database,
            self.sentinel is None or task.sentinel == self.sentinel,
            self.min_depth is None or task.depth >= self.min_depth,
            self.max_depth is None or task.depth <= self.max_depth,
        )
        return all(checks)


def select_tasks(selector: TaskSelector, catalog: Sequence[TaskFacts] | None) -> list[str]:
    """Names of the catalog tasks the selector matches, sorted."""
    if catalog is None:
        raise M4BenchError(
            "a profile block selects tasks by selector but no task catalog was given",
            hint="plan with the task catalog loaded (the CLI does), or list tasks explicitly",
        )
    return sorted(task.name for task in catalog if selector.matches(task))


def unknown_tasks(names: Iterable[str], catalog: Sequence[TaskFacts]) -> list[str]:
    known = {task.name for task in catalog}
    return sorted({name for name in names if name not in known})


def facts_from_catalog() -> list[TaskFacts]:
    """The facts of every task in the task catalog."""
    from m4bench.tasks.catalog import load_catalog

    return facts_of(load_catalog())


def facts_of(catalog: Catalog) -> list[TaskFacts]:
    """The facts of every task in ``catalog``."""
    return [
        TaskFacts(
            name=task.name,
            family=task.family,
            mode=task.card.mode,
            database=task.card.dataset,
            sentinel=task.card.controls.sentinel,
            depth=task.dependency_depth,
        )
        for task in catalog.tasks
    ]
